import { sql } from 'kysely';
import type { Database } from '../../db/database.js';
import type {
  AppendResult,
  AppendSettled,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  GlobalPosition,
  LagSample,
  LockedStream,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  SubscribeOptions,
  Subscription,
} from '../event-store.js';
import { appendToStream, appendToStreams } from './append-to-stream.js';
import { decodePostgresPosition, encodePostgresPosition } from './postgres-position.js';
import { countEventsAfter, readGlobalPage, readHeadPosition, readStreamEvents } from './postgres-reads.js';
import { PostgresSubscription, type SubscriptionSource } from './postgres-subscription.js';
import { SharedPageReads } from './shared-page-reads.js';

export interface PostgresEventStoreOptions {
  /** Events per read of a subscription (and the default page of readAll). */
  readonly batchSize?: number;
  /** How often a subscription looks for events when no notification arrives. */
  readonly pollIntervalMs?: number;
}

/** At most one NOTIFY per this many ms (plus its round trip) under a steady stream of appends. */
const NOTIFY_GATHER_MS = 10;

/** The channel the store notifies after appends (payload empty: listeners just re-read). */
export const APPENDED_CHANNEL = 'event_store_appended';

/**
 * The event store on Postgres or PGlite, through the same kysely handle the read models use
 * (tables, ordering and append: src/db/migrations/0001-event-store.ts). It does not own the database:
 * `close` stops its subscriptions, and whoever opened the database closes it.
 */
export class PostgresEventStore implements EventStore {
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly wakers = new Set<() => void>();
  private readonly subscriptions = new Set<Subscription>();
  private unlisten: Promise<(() => Promise<void>) | undefined> | undefined;
  private notifying: Promise<void> | undefined;
  private notifyAgain = false;
  private closed = false;
  /** The subscriptions' page reads, one query for those that ask for the same page at once. */
  private readonly pageReads: SharedPageReads;

  constructor(
    private readonly database: Database,
    options: PostgresEventStoreOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 1_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.pageReads = new SharedPageReads((after, limit, prefixes) => readGlobalPage(this.database.kysely, after, limit, prefixes));
  }

  async append(streamId: string, events: readonly EventToAppend[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    const result = await appendToStream(this.database.kysely, streamId, events, options.expectedRevision);
    this.announceAppend();
    return result;
  }

  /** One statement, one commit for every stream (migration 0103); each entry answered on its own. */
  async appendMany(appends: readonly StreamAppend[]): Promise<AppendSettled[]> {
    const settled = await appendToStreams(this.database.kysely, appends);
    if (settled.some((entry) => 'result' in entry)) this.announceAppend();
    return settled;
  }

  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return readStreamEvents(this.database.kysely, streamId, options);
  }

  /**
   * One transaction holding the stream's write lock (the lock every append takes, migration 0101): reads
   * see every append committed before, and no other append commits until this one has. The lock assigns
   * no transaction id, so the append is still the transaction's first write (the global order holds).
   */
  async withStreamLock<T>(streamId: string, work: (stream: LockedStream) => Promise<T>): Promise<T> {
    let appended = false;
    const result = await this.database.kysely.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtextextended(${streamId}, 0))`.execute(trx);
      return work({
        read: (options) => readStreamEvents(trx, streamId, options),
        append: (events, options) => {
          // a second write would no longer be the transaction's first
          if (appended) throw new Error('withStreamLock: one append per lock');
          appended = true;
          return appendToStream(trx, streamId, events, options.expectedRevision);
        },
      });
    });
    if (appended) this.announceAppend();
    return result;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    if (!Number.isInteger(limit) || limit < 0) throw new TypeError(`maxCount ${limit} is not a count`);
    if (limit === 0) return [];
    const page = await readGlobalPage(this.database.kysely, decodePostgresPosition(options.from ?? 'start'), limit);
    return page.events;
  }

  subscribe(options: SubscribeOptions, handler: (event: RecordedEvent) => Promise<void> | void, onError?: (error: unknown) => void): Subscription {
    if (this.closed) throw new Error('the event store is closed');
    const source: SubscriptionSource = {
      readPage: (after, limit, prefixes) => this.pageReads.readPage(after, limit, prefixes),
      readHead: () => readHeadPosition(this.database.kysely, 'committed'),
      onAppended: (wake) => this.onAppended(wake),
      at: (time) => this.pageReads.at(time),
    };
    const subscription = new PostgresSubscription(
      source,
      {
        from: options.from ?? 'start',
        streamPrefixes: options.streamPrefixes,
        batchSize: this.batchSize,
        pollIntervalMs: this.pollIntervalMs,
        minReadIntervalMs: options.minReadIntervalMs ?? 0,
        onProgress: options.streamPrefixes?.length ? options.onProgress : undefined,
      },
      handler,
      (error) => {
        this.subscriptions.delete(subscription);
        onError?.(error);
      },
    );
    this.subscriptions.add(subscription);
    return {
      caughtUp: () => subscription.caughtUp(),
      stop: async () => {
        this.subscriptions.delete(subscription);
        await subscription.stop();
      },
    };
  }

  async headPosition(): Promise<GlobalPosition | 'start'> {
    // Not the last committed event: an older transaction still running could commit events before it,
    // and a subscriber starting from there would never see them.
    const head = await readHeadPosition(this.database.kysely, 'final');
    return head ? encodePostgresPosition(head.transactionId, head.sequence) : 'start';
  }

  eventsAfter(from: GlobalPosition | 'start', limit: number): Promise<LagSample> {
    return countEventsAfter(this.database.kysely, decodePostgresPosition(from), limit);
  }

  ping(): Promise<void> {
    return this.database.ping();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.notifying;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
    this.subscriptions.clear();
    const unlisten = await this.unlisten?.catch(() => undefined);
    this.unlisten = undefined;
    await unlisten?.().catch(() => {});
  }

  /** One LISTEN for the whole store, shared by its subscriptions; without it they still poll. */
  private onAppended(wake: () => void): () => void {
    this.wakers.add(wake);
    this.unlisten ??= this.database
      .listen(APPENDED_CHANNEL, () => {
        for (const waker of this.wakers) waker();
      })
      .catch(() => {
        this.unlisten = undefined; // the next subscription tries again
        return undefined;
      });
    return () => void this.wakers.delete(wake);
  }

  /**
   * Wakes this store's subscriptions at once and tells other processes with a NOTIFY after the commit.
   * Appends that commit while a NOTIFY is on its way share the next one, sent a few milliseconds later:
   * listeners re-read the log, so one wake-up covers any number of appends.
   * A lost NOTIFY only delays the others until their next poll.
   */
  private announceAppend(): void {
    for (const waker of this.wakers) waker();
    if (this.notifying) {
      this.notifyAgain = true;
      return;
    }
    this.notifying = this.notifyOthers().finally(() => (this.notifying = undefined));
  }

  private async notifyOthers(): Promise<void> {
    for (;;) {
      this.notifyAgain = false;
      try {
        await this.database.notify(APPENDED_CHANNEL, '');
      } catch {
        return; // the database is away: subscriptions poll
      }
      if (!this.notifyAgain || this.closed) return;
      // Appends keep coming: gather a few milliseconds of them under the next NOTIFY.
      await new Promise((resolve) => setTimeout(resolve, NOTIFY_GATHER_MS));
    }
  }
}
