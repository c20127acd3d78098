import {
  WrongExpectedRevisionError,
  type AppendResult,
  type AppendSettled,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type GlobalPosition,
  type LagSample,
  type LockedStream,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamAppend,
  type SubscribeOptions,
  type Subscription,
} from '../eventstore/event-store.js';
import type { AppendOutcome } from './gateway-metrics.js';

/** Where the measured appends go (GatewayMetrics). */
export interface AppendObserver {
  observeAppend(outcome: AppendOutcome, seconds: number, events: number): void;
}

/**
 * The event store with its appends timed and their batch sizes counted, whatever the adapter. Applied
 * once where the core builds the store, so every writer (the ledger's batches, access commands, the
 * sweeper) is measured in one place; reads and subscriptions pass through untouched.
 */
export class MeasuredEventStore implements EventStore {
  /** The adapter's stream lock, when it has one, with the append inside it measured too. */
  readonly withStreamLock?: <T>(streamId: string, work: (stream: LockedStream) => Promise<T>) => Promise<T>;
  /** The adapter's appends to several streams at once, when it has them: each entry counted as an append. */
  readonly appendMany?: (appends: readonly StreamAppend[]) => Promise<AppendSettled[]>;

  constructor(
    private readonly inner: EventStore,
    private readonly observer: AppendObserver,
  ) {
    const withStreamLock = inner.withStreamLock?.bind(inner);
    if (withStreamLock) {
      this.withStreamLock = (streamId, work) =>
        withStreamLock(streamId, (stream) => work({ read: (options) => stream.read(options), append: (events, options) => this.measured(events, () => stream.append(events, options)) }));
    }
    const appendMany = inner.appendMany?.bind(inner);
    if (appendMany) {
      this.appendMany = async (appends) => {
        const started = performance.now();
        const observe = (outcomeOf: (index: number) => AppendOutcome) => {
          const seconds = (performance.now() - started) / 1000;
          appends.forEach((append, index) => this.observer.observeAppend(outcomeOf(index), seconds, append.events.length));
        };
        try {
          const settled = await appendMany(appends);
          observe((index) => {
            const entry = settled[index]!;
            return 'result' in entry ? 'ok' : failureOutcome(entry.error);
          });
          return settled;
        } catch (error) {
          observe(() => 'error');
          throw error;
        }
      };
    }
  }

  append(streamId: string, events: readonly EventToAppend[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    return this.measured(events, () => this.inner.append(streamId, events, options));
  }

  private async measured(events: readonly EventToAppend[], append: () => Promise<AppendResult>): Promise<AppendResult> {
    const started = performance.now();
    try {
      const result = await append();
      this.observer.observeAppend('ok', (performance.now() - started) / 1000, events.length);
      return result;
    } catch (error) {
      this.observer.observeAppend(failureOutcome(error), (performance.now() - started) / 1000, events.length);
      throw error;
    }
  }

  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.inner.readStream(streamId, options);
  }

  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.inner.readAll(options);
  }

  subscribe(options: SubscribeOptions, handler: (event: RecordedEvent) => Promise<void> | void, onError?: (error: unknown) => void): Subscription {
    return this.inner.subscribe(options, handler, onError);
  }

  headPosition(): Promise<GlobalPosition | 'start'> {
    return this.inner.headPosition();
  }

  eventsAfter(from: GlobalPosition | 'start', limit: number): Promise<LagSample> {
    return this.inner.eventsAfter(from, limit);
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A refused expected revision is a conflict (another writer was first); anything else is an error. */
function failureOutcome(error: unknown): AppendOutcome {
  return error instanceof WrongExpectedRevisionError ? 'conflict' : 'error';
}
