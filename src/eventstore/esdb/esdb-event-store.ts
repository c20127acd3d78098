import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  jsonEvent,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AllStreamRecordedEvent,
  type Position,
} from '@eventstore/db-client';
import { parseEventsToAppend, parseExpectedRevision } from '../event-envelope.js';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type GlobalPosition,
  type LagSample,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '../event-store.js';
import { compareEsdbPositions, decodeEsdbPosition, encodeEsdbPosition } from './esdb-position.js';
import { isSystemEvent, toRecordedEvent } from './esdb-recorded-event.js';
import { EsdbSubscription } from './esdb-subscription.js';

const PAGE_SIZE = 500;
/** How far back from the end `caughtUp` and `headPosition` look for an event of ours among system events. */
const HEAD_SCAN_LIMIT = 4_096;

/**
 * The event store on EventStoreDB (`@eventstore/db-client` v6; API notes in
 * /work/shared/reference/event-sourcing.md section 2). Revisions are 0-based on both sides, so they map
 * directly. Reads are inclusive of their start on EventStoreDB; the port's `readAll({from})` is exclusive,
 * so the event at `from` is skipped here. Subscriptions are exclusive on both sides. System events
 * (`$…` streams and types) never reach callers.
 */
export class EsdbEventStore implements EventStore {
  private readonly subscriptions = new Set<Subscription>();

  constructor(private readonly client: EventStoreDBClient) {}

  static fromConnectionString(url: string): EsdbEventStore {
    return new EsdbEventStore(EventStoreDBClient.connectionString(url));
  }

  async append(streamId: string, events: readonly EventToAppend[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    const batch = parseEventsToAppend(streamId, events);
    const expected = parseExpectedRevision(options.expectedRevision);
    try {
      const result = await this.client.appendToStream(
        streamId,
        batch.map((event) => jsonEvent({ id: event.id, type: event.type, data: event.data, metadata: event.metadata })),
        { expectedRevision: expected },
      );
      // With `throwOnAppendFailure=false` in the connection string a conflict comes back as a result, with -1 for "no stream".
      if (!result.success) throw new WrongExpectedRevisionError(streamId, expected, result.nextExpectedRevision < 0n ? 'no_stream' : result.nextExpectedRevision);
      if (!result.position) throw new Error(`append to ${streamId}: the server returned no position (EventStoreDB 22.6 or newer is required)`);
      return { nextExpectedRevision: result.nextExpectedRevision, position: encodeEsdbPosition(result.position) };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) throw new WrongExpectedRevisionError(streamId, expected, error.actualVersion);
      throw error;
    }
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const direction = options.direction ?? 'forwards';
    const from = options.fromRevision ?? (direction === 'forwards' ? 'start' : 'end');
    const maxCount = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    if (maxCount === 0 || (direction === 'forwards' && from === 'end') || (direction === 'backwards' && from === 'start')) return [];
    const events: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(streamId, {
        direction: direction === 'forwards' ? FORWARDS : BACKWARDS,
        fromRevision: from === 'start' ? START : from === 'end' ? END : from,
        maxCount,
      });
      for await (const resolved of read) if (resolved.event) events.push(toRecordedEvent(resolved.event));
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const events: RecordedEvent[] = [];
    await this.scanForwards(options.from ?? 'start', (event) => {
      events.push(toRecordedEvent(event));
      return events.length < limit;
    });
    return events;
  }

  subscribe(options: SubscribeOptions, handler: (event: RecordedEvent) => Promise<void> | void, onError?: (error: unknown) => void): Subscription {
    const prefixes = options.streamPrefixes;
    const subscription = new EsdbSubscription(
      this.client,
      {
        from: options.from ?? 'start',
        streamPrefixes: prefixes,
        onProgress: options.onProgress,
        findHead: () => this.findHead((streamId) => !prefixes?.length || prefixes.some((prefix) => streamId.startsWith(prefix))),
      },
      handler,
      onError,
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
    const head = await this.findHead(() => true);
    return head ? encodeEsdbPosition(head) : 'start';
  }

  async eventsAfter(from: GlobalPosition | 'start', limit: number): Promise<LagSample> {
    let events = 0;
    let oldestRecordedAt: Date | undefined;
    await this.scanForwards(from, (event) => {
      oldestRecordedAt ??= event.created;
      events++;
      return events < limit;
    });
    return { events, oldestRecordedAt };
  }

  async ping(): Promise<void> {
    for await (const _ of this.client.readAll({ maxCount: 1 })) break;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
    this.subscriptions.clear();
    await this.client.dispose();
  }

  /** Visits our events after `from` (exclusive) in `$all` order while `visit` returns true. */
  private async scanForwards(from: GlobalPosition | 'start', visit: (event: AllStreamRecordedEvent) => boolean): Promise<void> {
    let position: Position | typeof START = from === 'start' ? START : decodeEsdbPosition(from);
    let skip: Position | undefined = from === 'start' ? undefined : position as Position;
    for (;;) {
      let seen = 0;
      let last: Position | undefined;
      for await (const resolved of this.client.readAll({ fromPosition: position, direction: FORWARDS, maxCount: PAGE_SIZE })) {
        seen++;
        const event = resolved.event;
        if (!event) continue;
        last = event.position;
        if (skip && compareEsdbPositions(event.position, skip) === 0) continue;
        if (isSystemEvent(event)) continue;
        if (!visit(event)) return;
      }
      if (seen < PAGE_SIZE || !last) return;
      position = last;
      skip = last;
    }
  }

  /** The position of the last of our events (matching `accept`) near the end of `$all`, if any. */
  private async findHead(accept: (streamId: string) => boolean): Promise<Position | undefined> {
    for await (const resolved of this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: HEAD_SCAN_LIMIT })) {
      const event = resolved.event;
      if (event && !isSystemEvent(event) && accept(event.streamId)) return event.position;
    }
    return undefined;
  }
}
