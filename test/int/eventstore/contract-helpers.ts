import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { randomBase62 } from '../../../src/ids/random-id.js';
import {
  WrongExpectedRevisionError,
  type EventStore,
  type EventToAppend,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '../../../src/eventstore/event-store.js';

/** Each test writes to its own streams (`t<random>-…`), so tests share one store and ignore each other's events. */
export function streamPrefix(): string {
  return `t${randomBase62(10)}-`;
}

export function newEvent(data: Record<string, unknown> = {}, type = 'ThingHappened'): EventToAppend {
  return {
    id: randomUUID(),
    type,
    data,
    metadata: { schemaVersion: 1, occurredAt: new Date().toISOString(), causedBy: `gen-${randomBase62(24)}` },
  };
}

export function newEvents(count: number, data: (index: number) => Record<string, unknown> = (index) => ({ index })): EventToAppend[] {
  return Array.from({ length: count }, (_, index) => newEvent(data(index)));
}

/** The events of the whole log that belong to a test, read page by page. */
export async function readAllWithPrefix(store: EventStore, prefix: string, pageSize = 1_000): Promise<RecordedEvent[]> {
  const mine: RecordedEvent[] = [];
  let from: RecordedEvent['position'] | 'start' = 'start';
  for (;;) {
    const page = await store.readAll({ from, maxCount: pageSize });
    mine.push(...page.filter((event) => event.streamId.startsWith(prefix)));
    const last = page.at(-1);
    if (!last || page.length < pageSize) return mine;
    from = last.position;
  }
}

export async function expectWrongRevision(append: Promise<unknown>, actual: bigint | 'no_stream'): Promise<WrongExpectedRevisionError> {
  const error = await append.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error, 'the append should have been rejected').to.be.instanceOf(WrongExpectedRevisionError);
  expect((error as WrongExpectedRevisionError).actual).to.equal(actual);
  return error as WrongExpectedRevisionError;
}

export interface Collector {
  readonly events: RecordedEvent[];
  readonly errors: unknown[];
  readonly subscription: Subscription;
}

export function collect(store: EventStore, options: SubscribeOptions, onEvent?: (event: RecordedEvent) => Promise<void> | void): Collector {
  const events: RecordedEvent[] = [];
  const errors: unknown[] = [];
  const subscription = store.subscribe(
    options,
    async (event) => {
      await onEvent?.(event);
      events.push(event);
    },
    (error) => errors.push(error),
  );
  return { events, errors, subscription };
}

export function comparable(event: RecordedEvent): { streamId: string; revision: bigint; id: string } {
  return { streamId: event.streamId, revision: event.revision, id: event.id };
}

export async function eventually(assertion: () => Promise<unknown> | unknown, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(20);
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
