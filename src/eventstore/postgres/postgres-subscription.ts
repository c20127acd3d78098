import { CorruptEventError } from '../event-envelope.js';
import type { GlobalPosition, RecordedEvent, Subscription } from '../event-store.js';
import type { GlobalPage } from './postgres-reads.js';
import { comparePostgresPositions, decodePostgresPosition, encodePostgresPosition, type PostgresPosition } from './postgres-position.js';

/** What a subscription needs from the store: pages of the gated log, its head, and a wake-up on appends. */
export interface SubscriptionSource {
  readPage(after: PostgresPosition, limit: number, streamPrefixes: readonly string[] | undefined): Promise<GlobalPage>;
  readHead(): Promise<PostgresPosition | undefined>;
  /** Calls `wake` after each committed append (NOTIFY); returns the unregister function. */
  onAppended(wake: () => void): () => void;
  /** Resolves at `time` (epoch ms); the store's subscriptions that wait for the same time wake together (shared-page-reads.ts). */
  at(time: number): Promise<void>;
}

/**
 * The next read after a short page: the next whole multiple of the interval, so that every subscription of
 * the store with that interval (or a divisor of it) reads at the same time and can share the page. Readers
 * that shared a page are caught up within the same interval and so pick the same tick again; the wait is
 * at most the interval, and about the interval for a reader caught up just after its tick.
 */
export function nextReadTime(caughtUpAt: number, interval: number): number {
  return (Math.floor(caughtUpAt / interval) + 1) * interval;
}

/**
 * The longest wait between two reads while committed events wait behind an older transaction. The
 * transaction that releases them may append nothing and notify no one (another database's, an admin's), so
 * only a re-read sees them: doubling up to the poll interval, a reader held back for some seconds would
 * then sleep about as long again after the transaction ended.
 */
export const GATED_RETRY_MAX_MS = 250;

export interface PostgresSubscriptionOptions {
  readonly from: GlobalPosition | 'start';
  readonly streamPrefixes: readonly string[] | undefined;
  readonly batchSize: number;
  /** Fallback when a notification is lost (listener reconnecting) or none is sent. */
  readonly pollIntervalMs: number;
  /** Once caught up, the shortest time between two reads (0: read on every notification). */
  readonly minReadIntervalMs: number;
  /** Told where a filtered page ended when that is past the last event delivered (see `SubscribeOptions`). */
  readonly onProgress?: ((position: GlobalPosition) => void) | undefined;
}

interface CaughtUpWaiter {
  readonly target: PostgresPosition;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Catch-up then live: reads pages after its cursor until a page comes back short, then sleeps until a
 * NOTIFY from an append, the poll interval, or stop. When committed events wait behind an older open
 * transaction (the snapshot gate holds them back), it re-reads soon instead of waiting for a
 * notification: the transaction that releases them may be one that appends nothing and notifies no one.
 */
export class PostgresSubscription implements Subscription {
  private cursor: PostgresPosition;
  /** Every event with a transaction id below this has been delivered or filtered out. */
  private scannedBelow = 0n;
  private stopped = false;
  private failure: unknown;
  private notified = false;
  private inHandler = false;
  private wakeSleeper: (() => void) | undefined;
  private readonly waiters = new Set<CaughtUpWaiter>();
  private readonly unregister: () => void;
  private readonly done: Promise<void>;

  constructor(
    private readonly source: SubscriptionSource,
    private readonly options: PostgresSubscriptionOptions,
    private readonly handler: (event: RecordedEvent) => Promise<void> | void,
    private readonly onError: ((error: unknown) => void) | undefined,
  ) {
    this.cursor = decodePostgresPosition(options.from);
    this.unregister = source.onAppended(() => {
      this.notified = true;
      this.wakeSleeper?.();
    });
    this.done = this.run();
  }

  async caughtUp(): Promise<void> {
    if (this.stopped) throw this.failure ?? new Error('the subscription is stopped');
    const target = await this.source.readHead();
    if (!target) return;
    // Stopped while the head was read: `halt` has already rejected the waiters it knew of.
    if (this.stopped) throw this.failure ?? new Error('the subscription is stopped');
    await new Promise<void>((resolve, reject) => {
      this.waiters.add({ target, resolve, reject });
      this.settleWaiters();
    });
  }

  async stop(): Promise<void> {
    if (!this.stopped) this.halt(new Error('the subscription was stopped'));
    // Called from inside the handler, waiting for the loop would wait for ourselves.
    if (!this.inHandler) await this.done;
  }

  private async run(): Promise<void> {
    const { batchSize, pollIntervalMs, streamPrefixes, minReadIntervalMs } = this.options;
    let failures = 0;
    let gatedDelay = 0;
    let caughtUpAt: number | undefined;
    while (!this.stopped) {
      // Woken right after a short page: let appends gather so that the next read takes them together.
      if (caughtUpAt !== undefined && minReadIntervalMs > 0) {
        const at = nextReadTime(caughtUpAt, minReadIntervalMs);
        if (at > Date.now()) await this.sleepUntil(at);
        if (this.stopped) return;
      }
      caughtUpAt = undefined;
      this.notified = false;
      let page: GlobalPage;
      try {
        page = await this.source.readPage(this.cursor, batchSize, streamPrefixes);
        failures = 0;
      } catch (error) {
        if (error instanceof CorruptEventError) return this.fail(error);
        // The database is away (restart, failover): keep trying, the position is safe in memory.
        failures++;
        await this.sleep(Math.min(5_000, 50 * 2 ** failures));
        continue;
      }
      for (const event of page.events) {
        if (this.stopped) return;
        this.inHandler = true;
        try {
          await this.handler(event);
        } catch (error) {
          return this.fail(error);
        } finally {
          this.inHandler = false;
        }
        this.cursor = decodePostgresPosition(event.position);
        this.settleWaiters();
      }
      // Past the rows of other streams too, so that they are not read again.
      if (page.lastScanned && comparePostgresPositions(page.lastScanned, this.cursor) > 0) {
        this.cursor = page.lastScanned;
        try {
          this.options.onProgress?.(encodePostgresPosition(this.cursor.transactionId, this.cursor.sequence));
        } catch (error) {
          return this.fail(error);
        }
      }
      // PGlite answers without real I/O, so a loop of reads would run on microtasks alone and starve timers
      // and sockets (the gateway's HTTP server in the embedded mode) until it caught up.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (page.scanned >= batchSize) continue;
      caughtUpAt = Date.now();
      if (page.horizon > this.scannedBelow) this.scannedBelow = page.horizon;
      this.settleWaiters();
      if (this.notified) continue;
      gatedDelay = page.pendingBeyondHorizon ? Math.min(pollIntervalMs, GATED_RETRY_MAX_MS, gatedDelay ? gatedDelay * 2 : 2) : 0;
      await this.sleep(gatedDelay || pollIntervalMs);
    }
  }

  private settleWaiters(): void {
    for (const waiter of this.waiters) {
      if (comparePostgresPositions(this.cursor, waiter.target) >= 0 || waiter.target.transactionId < this.scannedBelow) {
        this.waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  /** Sleeps until the time is up, an append is announced, or the subscription stops. */
  private sleep(ms: number): Promise<void> {
    // Stopped while a read was in flight: the wake-up of `halt` went to no sleeper.
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeSleeper = done;
    });
  }

  /** Sleeps until the store's tick at `time` (appends do not wake it), or the subscription stops. */
  private sleepUntil(time: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      void this.source.at(time).then(resolve);
      this.wakeSleeper = () => {
        if (this.stopped) resolve();
      };
    });
  }

  private fail(error: unknown): void {
    this.failure = error;
    this.halt(error);
    this.onError?.(error);
  }

  private halt(reason: unknown): void {
    this.stopped = true;
    this.unregister();
    this.wakeSleeper?.();
    for (const waiter of this.waiters) waiter.reject(reason);
    this.waiters.clear();
  }
}
