import { z } from 'zod';
import { regexes } from 'zod/v4/core';
import { jsonObjectSchema, type JsonObject } from './event-data.js';
import type { EventMetadata, EventToAppend } from './event-store.js';

/**
 * The envelope every event carries (DESIGN.md section 4), checked by both adapters on append and on read:
 * a caller-chosen UUID, a past-tense PascalCase type, a JSON object of data, and metadata saying which
 * shape the data has (`schemaVersion`), when it happened and what caused it. The data itself is checked
 * against its type's schema by the event catalogue, which knows the types.
 */

/** `gen-…` (a request), `video_…` (the request that queued a video job), `admin:<actor>` (an admin command), `system:<component>` (the expiry sweeper, the video worker, a migration). */
export const CAUSED_BY_PATTERN = /^(gen-[0-9A-Za-z]+|video_[0-9A-Za-z]+|admin:\S+|system:\S+)$/;
/** Past tense PascalCase (`FundsReserved`); EventStoreDB reserves types starting with `$`. */
export const EVENT_TYPE_PATTERN = /^[A-Z][A-Za-z0-9]{0,99}$/;

export const eventMetadataSchema = z.strictObject({
  schemaVersion: z.int().min(1),
  occurredAt: z.iso.datetime({ offset: true }),
  causedBy: z.string().regex(CAUSED_BY_PATTERN, 'must be gen-<request id>, video_<job id>, admin:<actor> or system:<component>'),
});

export const eventIdSchema = z.uuid();

/** The pattern `z.iso.datetime({ offset: true })` checks (zod builds it from the same call). */
const OCCURRED_AT_PATTERN = regexes.datetime({ offset: true });

/**
 * `eventMetadataSchema`'s verdict without zod's machinery: every event appended and every event read is
 * checked, two or more a request, and zod's result objects were most of what the check cost. True only for
 * metadata the schema accepts (test/unit/eventstore/event-envelope.test.ts holds the two together); callers
 * fall back to the schema for the message when it says no.
 */
export function isValidMetadata(metadata: unknown): metadata is EventMetadata {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return false;
  const { schemaVersion, occurredAt, causedBy } = metadata as Record<string, unknown>;
  let keys = 0;
  for (const key in metadata) if (Object.hasOwn(metadata, key)) keys++;
  return (
    keys === 3 &&
    typeof schemaVersion === 'number' &&
    Number.isSafeInteger(schemaVersion) &&
    schemaVersion >= 1 &&
    typeof occurredAt === 'string' &&
    OCCURRED_AT_PATTERN.test(occurredAt) &&
    typeof causedBy === 'string' &&
    CAUSED_BY_PATTERN.test(causedBy)
  );
}

const eventToAppendSchema = z.strictObject({
  id: eventIdSchema,
  type: z.string().regex(EVENT_TYPE_PATTERN, 'must be a PascalCase event name'),
  data: jsonObjectSchema,
  metadata: eventMetadataSchema,
});

/** Stream ids are `<kind>-<id>` (DESIGN.md section 4); `$…` belongs to EventStoreDB's system streams. */
const streamIdSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^$\s][^\s]*$/, 'must not start with $ nor contain whitespace');

/** An event (or a batch) that the store refuses to write; a programming error, never retried. */
export class InvalidEventError extends Error {
  override name = 'InvalidEventError';
}

/** A stored event whose envelope is not valid: the log was written by something else, or is damaged. */
export class CorruptEventError extends Error {
  override name = 'CorruptEventError';
}

/**
 * Events that an event catalogue created (event-catalogue.ts) have had every field checked there: the data
 * against its type's schema and for plain JSON, the id, the metadata. The store does not check them a
 * second time (on the ledger's hot path the second check was about 40 % of what validation cost); it still
 * checks the batch (stream id, no id twice). The envelope is frozen, so what was checked is what is written.
 */
const checkedByCatalogue = new WeakSet<EventToAppend>();

export function markCheckedByCatalogue<Event extends EventToAppend>(event: Event): Event {
  Object.freeze(event.metadata);
  checkedByCatalogue.add(Object.freeze(event));
  return event;
}

/** Checks a batch before it is appended; returns the events with only the envelope's fields. */
export function parseEventsToAppend(streamId: string, events: readonly EventToAppend[]): EventToAppend<string, JsonObject>[] {
  const stream = streamIdSchema.safeParse(streamId);
  if (!stream.success) throw new InvalidEventError(`stream id ${JSON.stringify(streamId)} ${stream.error.issues[0]?.message ?? 'is invalid'}`);
  if (events.length === 0) throw new InvalidEventError(`append to ${streamId}: no events`);
  const ids = new Set<string>();
  return events.map((event, index) => {
    if (checkedByCatalogue.has(event)) {
      const id = event.id.toLowerCase();
      if (ids.has(id)) throw new InvalidEventError(`append to ${streamId}: event id ${id} appears twice in one batch`);
      ids.add(id);
      return { id, type: event.type, data: event.data as JsonObject, metadata: event.metadata };
    }
    const parsed = eventToAppendSchema.safeParse(event);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : 'event';
      throw new InvalidEventError(`append to ${streamId}: events[${index}].${where}: ${issue?.message ?? 'invalid'}`);
    }
    const id = parsed.data.id.toLowerCase();
    if (ids.has(id)) throw new InvalidEventError(`append to ${streamId}: event id ${id} appears twice in one batch`);
    ids.add(id);
    return { id, type: parsed.data.type, data: parsed.data.data, metadata: parsed.data.metadata };
  });
}

export function parseExpectedRevision(value: unknown): 'no_stream' | 'stream_exists' | 'any' | bigint {
  if (value === 'no_stream' || value === 'stream_exists' || value === 'any') return value;
  if (typeof value === 'bigint' && value >= 0n) return value;
  throw new InvalidEventError(`expected revision ${String(value)} is not 'no_stream', 'stream_exists', 'any' or a revision >= 0`);
}

export interface StoredEnvelope {
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: unknown;
}

const storedEnvelopeSchema = z.object({
  id: z.string().min(1),
  type: z.string().regex(EVENT_TYPE_PATTERN),
  data: z.record(z.string(), z.unknown()),
  metadata: eventMetadataSchema,
});

/** A JSON object as `z.record` accepts it: not null, not an array, nothing but a plain object. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * Checks the envelope of an event read from a store (zod only for one that fails the plain check, for its
 * message). `where` names the event in that message; a function is called only then.
 */
export function parseStoredEnvelope(
  stored: StoredEnvelope,
  where: string | (() => string),
): { id: string; type: string; data: Record<string, unknown>; metadata: EventMetadata } {
  const { id, type, data, metadata } = stored;
  if (typeof id === 'string' && id.length > 0 && typeof type === 'string' && EVENT_TYPE_PATTERN.test(type) && isPlainObject(data) && isValidMetadata(metadata)) {
    return { id, type, data, metadata };
  }
  const parsed = storedEnvelopeSchema.safeParse(stored);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CorruptEventError(`event ${typeof where === 'string' ? where : where()}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid envelope'}`);
  }
  return parsed.data;
}
