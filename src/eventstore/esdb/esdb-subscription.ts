import {
  excludeSystemEvents,
  START,
  streamNameFilter,
  type AllStreamSubscription,
  type EventStoreDBClient,
  type Position,
} from '@eventstore/db-client';
import type { GlobalPosition, RecordedEvent, Subscription } from '../event-store.js';
import { compareEsdbPositions, decodeEsdbPosition, encodeEsdbPosition } from './esdb-position.js';
import { isSystemEvent, toRecordedEvent } from './esdb-recorded-event.js';

export interface EsdbSubscriptionOptions {
  readonly from: GlobalPosition | 'start';
  readonly streamPrefixes: readonly string[] | undefined;
  /** See `SubscribeOptions.onProgress`. With it, the prefixes are applied here rather than by the server. */
  readonly onProgress: ((position: GlobalPosition) => void) | undefined;
  /** The last event the subscription should count as "committed before": see `caughtUp`. */
  readonly findHead: () => Promise<Position | undefined>;
}

/**
 * A catch-up subscription to `$all`. EventStoreDB starts it *after* the given position (exclusive), which
 * is the port's meaning of `from`. With a stream-prefix filter the server also reports checkpoints while it
 * skips non-matching events; those advance the scanned position that `caughtUp` compares against.
 *
 * The server's checkpoints reach the client beside the events, not in order with them: a checkpoint can
 * name a position past events still waiting in the client's buffer. So they are never reported as
 * progress. A reader that asks for progress gets the prefixes applied here, on the events as they come,
 * and is told the position of each event it skipped: the same events cross the network as without a
 * filter, and the progress is exact.
 */
export class EsdbSubscription implements Subscription {
  private readonly stream: AllStreamSubscription;
  private readonly clientPrefixes: readonly string[] | undefined;
  private delivered: Position | undefined;
  private scanned: Position | undefined;
  private live = false;
  private stopped = false;
  private failure: unknown;
  private inHandler = false;
  private readonly waiters = new Set<{ target: Position | undefined; resolve(): void; reject(error: unknown): void }>();
  private readonly done: Promise<void>;

  constructor(
    client: EventStoreDBClient,
    private readonly options: EsdbSubscriptionOptions,
    private readonly handler: (event: RecordedEvent) => Promise<void> | void,
    private readonly onError: ((error: unknown) => void) | undefined,
  ) {
    const checkpointReached = (_: unknown, position: Position) => {
      if (!this.scanned || compareEsdbPositions(position, this.scanned) > 0) this.scanned = position;
      this.settleWaiters();
    };
    const prefixes = options.streamPrefixes;
    const serverFilters = prefixes && prefixes.length > 0 && !options.onProgress;
    this.clientPrefixes = prefixes && prefixes.length > 0 && options.onProgress ? prefixes : undefined;
    this.stream = client.subscribeToAll({
      fromPosition: options.from === 'start' ? START : decodeEsdbPosition(options.from),
      filter: serverFilters ? streamNameFilter({ prefixes: [...prefixes], checkpointReached }) : excludeSystemEvents({ checkpointReached }),
    });
    this.stream.on('caughtUp', () => {
      this.live = true;
      this.settleWaiters();
    });
    this.done = this.run();
  }

  /**
   * Waits until the last matching event that existed when called has been handled; if no such event is
   * near the end of the log, until the server says the subscription is live.
   */
  async caughtUp(): Promise<void> {
    if (this.stopped) throw this.failure ?? new Error('the subscription is stopped');
    const target = await this.options.findHead();
    await new Promise<void>((resolve, reject) => {
      this.waiters.add({ target, resolve, reject });
      this.settleWaiters();
    });
  }

  async stop(): Promise<void> {
    if (!this.stopped) this.halt(new Error('the subscription was stopped'));
    await this.stream.unsubscribe().catch(() => {});
    if (!this.inHandler) await this.done;
  }

  private async run(): Promise<void> {
    try {
      for await (const resolved of this.stream) {
        if (this.stopped) return;
        const event = resolved.event;
        if (!event || isSystemEvent(event)) continue;
        const prefixes = this.clientPrefixes;
        if (prefixes && !prefixes.some((prefix) => event.streamId.startsWith(prefix))) {
          this.options.onProgress?.(encodeEsdbPosition(event.position));
        } else {
          this.inHandler = true;
          try {
            await this.handler(toRecordedEvent(event));
          } finally {
            this.inHandler = false;
          }
        }
        if (event.position) this.delivered = event.position;
        this.settleWaiters();
      }
    } catch (error) {
      if (!this.stopped) this.fail(error);
    }
  }

  private settleWaiters(): void {
    const reached = (target: Position) =>
      [this.delivered, this.scanned].some((position) => position !== undefined && compareEsdbPositions(position, target) >= 0);
    for (const waiter of this.waiters) {
      if (waiter.target ? reached(waiter.target) : this.live) {
        this.waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  private fail(error: unknown): void {
    this.failure = error;
    this.halt(error);
    void this.stream.unsubscribe().catch(() => {});
    this.onError?.(error);
  }

  private halt(reason: unknown): void {
    this.stopped = true;
    for (const waiter of this.waiters) waiter.reject(reason);
    this.waiters.clear();
  }
}
