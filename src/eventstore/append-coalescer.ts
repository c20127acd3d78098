import type { AppendResult, AppendSettled, EventStore, EventToAppend, ExpectedRevision, StreamAppend } from './event-store.js';

/** A store that appends to several streams at once. */
export type GroupAppendingStore = EventStore & Required<Pick<EventStore, 'appendMany'>>;

export function appendsToManyStreams(store: EventStore): store is GroupAppendingStore {
  return typeof store.appendMany === 'function';
}

/** An append waiting for the next write, with whoever awaits it. */
interface Waiting extends StreamAppend {
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

export interface AppendCoalescerOptions {
  /** Writes in flight at once; appends that arrive while all are busy wait and go out together (default 4). */
  readonly maxInFlight?: number;
  /** Appends in one write at most (default 100). */
  readonly maxAppends?: number;
}

/**
 * Group commit across streams: appends to different streams that arrive in the same turn of the event
 * loop, or while the store is busy with earlier writes, go out in one `appendMany` (one statement, one
 * commit), each still checked against its own expected revision and answered on its own. With many
 * organizations busy at once, each account's batch no longer pays its own round trip and commit.
 *
 * An append that arrives with no write in flight goes out at once, as one plain append: at low load, and
 * for one hot account, nothing waits for company. The appends of one stream keep their order (they
 * go out in the order they came, and one write runs them in array order).
 */
export class AppendCoalescer {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly maxInFlight: number;
  private readonly maxAppends: number;

  constructor(
    private readonly store: GroupAppendingStore,
    options: AppendCoalescerOptions = {},
  ) {
    this.maxInFlight = options.maxInFlight ?? 4;
    this.maxAppends = options.maxAppends ?? 100;
  }

  append(streamId: string, events: readonly EventToAppend[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    return new Promise<AppendResult>((resolve, reject) => {
      this.waiting.push({ streamId, events, expectedRevision: options.expectedRevision, resolve, reject });
      this.schedule();
    });
  }

  /**
   * With no write in flight, the next one goes out once the current task's microtasks have run: a lone
   * append (one hot account, whose batches go out one after the other) waits for nothing. While writes are
   * in flight, it goes out at the next turn of the event loop, so that the appends of this turn's requests
   * join it. (Waiting a turn before every batch cost one hot organization about 12 % of its throughput under
   * load, the median of eight benchmark pairs: docs/performance.md.)
   */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.waiting.length === 0) return;
    this.scheduled = true;
    const write = () => {
      this.scheduled = false;
      void this.write();
    };
    if (this.inFlight === 0) queueMicrotask(write);
    else setImmediate(write);
  }

  private async write(): Promise<void> {
    if (this.inFlight >= this.maxInFlight || this.waiting.length === 0) return;
    const group = this.waiting.splice(0, this.maxAppends);
    this.inFlight++;
    try {
      if (group.length === 1) {
        const [only] = group as [Waiting];
        await this.store.append(only.streamId, only.events, { expectedRevision: only.expectedRevision }).then(only.resolve, only.reject);
        return;
      }
      let settled: AppendSettled[];
      try {
        settled = await this.store.appendMany(group);
        if (settled.length !== group.length) throw new Error(`appendMany answered ${settled.length} of ${group.length} appends`);
      } catch (error) {
        for (const append of group) append.reject(error);
        return;
      }
      group.forEach((append, index) => {
        const entry = settled[index]!;
        if ('result' in entry) append.resolve(entry.result);
        else append.reject(entry.error);
      });
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }
}
