/**
 * The event log port (DESIGN.md section 4). Two adapters implement it: the Postgres store (kysely, on
 * `pg` or PGlite) and EventStoreDB. One contract suite (test/int/eventstore) holds both to it.
 *
 * Semantics follow EventStoreDB: revisions are 0-based per stream; an expected revision is
 * `'no_stream' | 'stream_exists' | 'any' | bigint` (the revision of the stream's last event);
 * events carry caller-chosen ids, and appending events whose ids are already in the stream is a no-op.
 *
 * Idempotency rule (both adapters): an append whose every event id is already in the stream, at
 * consecutive revisions in the same order and where the expected revision puts them, returns the original
 * result and writes nothing. A batch that overlaps the stream in any other way (only some ids present, or
 * present at other revisions) is rejected with WrongExpectedRevisionError: it is a retry that does not
 * match what was written, and writing part of it would break "one decision, one append".
 */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | bigint;

/** Opaque, serialisable position in the global log; compare only through the adapter that issued it. */
export type GlobalPosition = string & { readonly __brand: 'GlobalPosition' };

export interface EventMetadata {
  /** Version of the event's data shape; an upcaster lifts older versions on read. */
  readonly schemaVersion: number;
  /** ISO-8601 time the event happened, from the injected clock. */
  readonly occurredAt: string;
  /** What caused it: a request id (`gen-…`) or an admin actor (`admin:<who>`). */
  readonly causedBy: string;
}

export interface EventToAppend<Type extends string = string, Data = unknown> {
  /** UUID chosen by the caller; the same id appended twice to a stream is stored once. */
  readonly id: string;
  readonly type: Type;
  readonly data: Data;
  readonly metadata: EventMetadata;
}

export interface RecordedEvent<Type extends string = string, Data = unknown> extends EventToAppend<Type, Data> {
  readonly streamId: string;
  readonly revision: bigint;
  readonly position: GlobalPosition;
  /** When the store recorded it. */
  readonly recordedAt: Date;
}

export interface AppendResult {
  /** Revision of the stream's last event after the append (the expected revision for the next one). */
  readonly nextExpectedRevision: bigint;
  readonly position: GlobalPosition;
}

/** One stream's append among several made together (`EventStore.appendMany`). */
export interface StreamAppend {
  readonly streamId: string;
  readonly events: readonly EventToAppend[];
  readonly expectedRevision: ExpectedRevision;
}

/** What became of one of them: its result, or its own error (a WrongExpectedRevisionError, an invalid batch). */
export type AppendSettled = { readonly result: AppendResult } | { readonly error: unknown };

export interface ReadStreamOptions {
  /** Inclusive; default: start (forwards) or end (backwards). */
  readonly fromRevision?: bigint | 'start' | 'end';
  readonly direction?: 'forwards' | 'backwards';
  readonly maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events after this position; default: from the beginning. */
  readonly from?: GlobalPosition | 'start';
  readonly maxCount?: number;
}

export interface SubscribeOptions {
  /** Exclusive: deliver events after this position; default: from the beginning. */
  readonly from?: GlobalPosition | 'start';
  /** Only streams whose id starts with one of these prefixes (e.g. `account-`). */
  readonly streamPrefixes?: readonly string[];
  /**
   * Once caught up, read the log at most this often (ms; default 0: on every append). For readers that
   * gain from larger batches more than from fresher data, such as read models under a steady stream of
   * appends. Stores that push events (EventStoreDB) may ignore it.
   */
  readonly minReadIntervalMs?: number;
  /**
   * With `streamPrefixes`: called with a position the subscription has read past, when that is beyond the
   * last event it delivered (every event up to it was delivered or did not match). Calls come in order
   * with the handler's: no matching event before the position is delivered after it. A filtered reader
   * that stores its position (a projection's checkpoint) stores this one, so that neither a restart nor
   * a lag count walks again through the events it skipped. Never called without `streamPrefixes`.
   */
  readonly onProgress?: (position: GlobalPosition) => void;
}

export interface Subscription {
  /** Resolves when the subscription has delivered every event committed before it was called. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

/** How far a reader is behind the end of the log (see `EventStore.eventsAfter`). */
export interface LagSample {
  /** Events after the reader's position, counted up to the limit asked for. */
  readonly events: number;
  /** When the first of them was recorded; undefined when none follow. */
  readonly oldestRecordedAt: Date | undefined;
}

export interface EventStore {
  append(streamId: string, events: readonly EventToAppend[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult>;
  /** Events of one stream in revision order; an absent stream reads as empty. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Events of every stream in global commit order; never skips an event committed late. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * Catches up from `from`, then follows new events as they commit. The handler is awaited one event at
   * a time, in global order; an error thrown by it stops the subscription (reported to `onError`).
   */
  subscribe(options: SubscribeOptions, handler: (event: RecordedEvent) => Promise<void> | void, onError?: (error: unknown) => void): Subscription;
  /**
   * The current end of the log, or 'start' when empty: the position of the last committed event that no
   * later commit can precede (on Postgres, events of a transaction still running sort before it until it
   * ends). Subscribing from it therefore misses nothing committed afterwards.
   */
  headPosition(): Promise<GlobalPosition | 'start'>;
  /**
   * Counts the events after `from` (up to `limit`) without reading their data. Positions are opaque, so a
   * projection's lag (events and milliseconds behind the head) can only be measured by the adapter.
   */
  eventsAfter(from: GlobalPosition | 'start', limit: number): Promise<LagSample>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Optional: runs `work` while no other append to `streamId` can commit (they wait for it), so a read →
   * decide → append inside it cannot lose the race. For a writer that lost the optimistic race for a busy
   * stream and must not starve. Adapters without such a lock leave it out; their writers retry
   * optimistically.
   */
  withStreamLock?<T>(streamId: string, work: (stream: LockedStream) => Promise<T>): Promise<T>;
  /**
   * Optional: appends to several streams in one write and one commit (group commit across streams). Each
   * entry is checked against its own expected revision and answered on its own, in order; a conflict on
   * one stream writes nothing there and does not stop the others. The whole call rejects only when the
   * store could not be written at all. Adapters without it leave it out; callers append one by one.
   */
  appendMany?(appends: readonly StreamAppend[]): Promise<AppendSettled[]>;
}

/** One stream under its write lock: read it, and append to it once. */
export interface LockedStream {
  read(options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  append(events: readonly EventToAppend[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult>;
}

/** The append's expected revision did not match the stream. Callers reload and retry. */
export class WrongExpectedRevisionError extends Error {
  override name = 'WrongExpectedRevisionError';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`wrong expected revision on ${streamId}: expected ${String(expected)}, actual ${String(actual)}`);
  }
}
