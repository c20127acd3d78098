import { z } from 'zod';
import { findNonJson } from './event-data.js';
import { CAUSED_BY_PATTERN, EVENT_TYPE_PATTERN, eventIdSchema, eventMetadataSchema, isValidMetadata, markCheckedByCatalogue } from './event-envelope.js';
import type { EventToAppend, RecordedEvent } from './event-store.js';

/**
 * Features register the events they write: a type, the zod schema of its current shape, and one upcaster
 * per older shape (DESIGN.md section 4: an event's meaning never changes; a new shape is a new version).
 * Readers decode through a catalogue, so stored data of any known version comes out in the current shape,
 * checked, and typed by the event's `type`. An event the catalogue does not know is reported
 * (UnknownEventTypeError), never skipped: a reader that skipped it would silently compute wrong balances.
 *
 *   const CreditsAdded = defineEvent({
 *     type: 'CreditsAdded',
 *     schemaVersion: 2,
 *     schema: z.object({ amount: nanodollarsText, reason: z.string() }),
 *     upcasters: { 1: upcastFrom(z.object({ amount: nanodollarsText }), (v1) => ({ ...v1, reason: 'unspecified' })) },
 *   });
 *   const catalogue = new EventCatalogue([CreditsAdded, KeyIssued]);
 *   const event = catalogue.decode(recorded); // switch (event.type) { case 'CreditsAdded': event.data.reason … }
 *
 * Schemas describe the stored JSON; keep them free of transforms so that what `create` writes is what
 * `decode` returns (amounts stay nanodollar strings in data; convert at the edge with textToNanodollars).
 */

/** Lifts data of version n to version n + 1; its output is checked by the next version's schema. */
export interface Upcaster {
  readonly schema: z.ZodType;
  upcast(data: unknown): unknown;
}

export function upcastFrom<Schema extends z.ZodType>(schema: Schema, upcast: (data: z.output<Schema>) => unknown): Upcaster {
  return { schema, upcast: (data) => upcast(data as z.output<Schema>) };
}

export interface EventDefinition<Type extends string = string, Data = unknown> {
  readonly type: Type;
  /** The current version: what `create` writes and `decode` returns. */
  readonly schemaVersion: number;
  readonly schema: z.ZodType<Data>;
  /** An event of the current version, its data checked against the schema. */
  create(input: { id: string; data: Data; occurredAt: string; causedBy: string }): EventToAppend<Type, Data>;
  /** Stored data of `schemaVersion` lifted to the current shape; throws EventDecodeError. */
  upcast(schemaVersion: number, data: unknown, where: string): Data;
}

/** The decoded event type of one definition, or of a union of them. */
export type EventOf<Definition> = Definition extends EventDefinition<infer Type, infer Data> ? RecordedEvent<Type, Data> : never;

export class UnknownEventTypeError extends Error {
  override name = 'UnknownEventTypeError';
  constructor(
    readonly eventType: string,
    readonly where: string,
  ) {
    super(`unknown event type ${eventType} (${where}): no feature of this build registers it; upgrade the reader or fix the catalogue`);
  }
}

/** A known type whose stored data does not fit its schema, or whose version has no upcaster. */
export class EventDecodeError extends Error {
  override name = 'EventDecodeError';
}

export function defineEvent<const Type extends string, Schema extends z.ZodType>(definition: {
  type: Type;
  schemaVersion: number;
  schema: Schema;
  /** Keyed by the version they lift from: exactly 1 … schemaVersion - 1. */
  upcasters?: Readonly<Record<number, Upcaster>>;
}): EventDefinition<Type, z.output<Schema>> {
  const { type, schemaVersion, schema } = definition;
  const upcasters = definition.upcasters ?? {};
  if (!EVENT_TYPE_PATTERN.test(type)) throw new TypeError(`event type ${type} must be a PascalCase name`);
  if (!Number.isInteger(schemaVersion) || schemaVersion < 1) throw new TypeError(`${type}: schemaVersion must be an integer >= 1`);
  const keys = Object.keys(upcasters).map(Number).sort((a, b) => a - b);
  const expectedKeys = Array.from({ length: schemaVersion - 1 }, (_, index) => index + 1);
  if (keys.join(',') !== expectedKeys.join(',')) {
    throw new TypeError(`${type}: version ${schemaVersion} needs one upcaster from each older version (${expectedKeys.join(', ') || 'none'}), got ${keys.join(', ') || 'none'}`);
  }
  type Data = z.output<Schema>;

  const check = (version: number, versionSchema: z.ZodType, data: unknown, where: string): unknown => {
    const parsed = versionSchema.safeParse(data);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw new EventDecodeError(`${type} v${version} (${where}): ${issue?.path.join('.') || 'data'}: ${issue?.message ?? 'invalid'}`);
  };

  return {
    type,
    schemaVersion,
    schema: schema as z.ZodType<Data>,
    create({ id, data, occurredAt, causedBy }) {
      check(schemaVersion, schema, data, 'create');
      const problem = findNonJson(data);
      if (problem) throw new EventDecodeError(`${type}: data ${problem}`);
      if (!CAUSED_BY_PATTERN.test(causedBy)) throw new EventDecodeError(`${type}: causedBy ${causedBy} is not gen-…, video_…, admin:… or system:…`);
      // the rest of the envelope, so that the store need not check this event again
      if (!eventIdSchema.safeParse(id).success) throw new EventDecodeError(`${type}: id ${id} is not a UUID`);
      const metadata = { schemaVersion, occurredAt, causedBy };
      const checked = isValidMetadata(metadata) ? undefined : eventMetadataSchema.safeParse(metadata);
      if (checked && !checked.success) throw new EventDecodeError(`${type}: metadata.${checked.error.issues[0]?.path.join('.') ?? ''}: ${checked.error.issues[0]?.message ?? 'invalid'}`);
      return markCheckedByCatalogue({ id, type, data, metadata });
    },
    upcast(version, data, where) {
      if (!Number.isInteger(version) || version < 1 || version > schemaVersion) {
        throw new EventDecodeError(`${type} (${where}): schema version ${version} is unknown to this build (it knows 1 to ${schemaVersion})`);
      }
      let current = data;
      for (let from = version; from < schemaVersion; from++) {
        const upcaster = upcasters[from]!;
        current = upcaster.upcast(check(from, upcaster.schema, current, where));
      }
      return check(schemaVersion, schema, current, where) as Data;
    },
  };
}

/** Every event type a reader can meet, by name. */
export class EventCatalogue<Definitions extends readonly EventDefinition[] = readonly EventDefinition[]> {
  private readonly byType = new Map<string, EventDefinition>();
  /** Decoded events by the object read; an entry lives as long as its event does. */
  private readonly decoded = new WeakMap<RecordedEvent, EventOf<Definitions[number]>>();

  constructor(readonly definitions: Definitions) {
    for (const definition of definitions) {
      if (this.byType.has(definition.type)) throw new TypeError(`event type ${definition.type} is registered twice`);
      this.byType.set(definition.type, definition);
    }
  }

  knows(type: string): boolean {
    return this.byType.has(type);
  }

  /**
   * An event of `type` to append, through its definition: the data checked against the current schema, and
   * the metadata saying that schema's version, so no writer states a version of its own.
   */
  create(type: string, input: { id: string; data: unknown; occurredAt: string; causedBy: string }): EventToAppend {
    const definition = this.byType.get(type);
    if (!definition) throw new UnknownEventTypeError(type, 'create');
    return definition.create(input);
  }

  /**
   * The event with its data in the current shape; metadata still says the version it was stored as.
   * Readers that were handed the same event object (a page the store read once for several subscriptions)
   * get the same decoded object, checked once: readers treat events as read-only.
   */
  decode(event: RecordedEvent): EventOf<Definitions[number]> {
    const known = this.decoded.get(event);
    if (known) return known;
    const where = `${event.streamId}@${event.revision}`;
    const definition = this.byType.get(event.type);
    if (!definition) throw new UnknownEventTypeError(event.type, where);
    const decoded = { ...event, data: definition.upcast(event.metadata.schemaVersion, event.data, where) } as EventOf<Definitions[number]>;
    this.decoded.set(event, decoded);
    return decoded;
  }
}
