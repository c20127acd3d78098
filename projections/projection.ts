import type { Transaction } from 'kysely';
import type { EventDefinition, EventOf } from '../src/eventstore/event-catalogue.js';

/**
 * A read model (DESIGN.md section 8): the events it handles and pure row updates, applied by the runner
 * inside the transaction that also stores its checkpoint.
 *
 * Table naming, and why: each build of a read model (a "generation") lives in its own schema,
 * `rm_<name>_<generation>`. `setup` and `apply` use unqualified table names; the runner sets
 * `search_path` to the generation's schema for their transaction, so the same code fills generation 1 or
 * a rebuild's generation 2. Readers query views of the same names in `public`, which point at the active
 * generation; a rebuild fills a fresh schema while the views keep serving the old one, then repoints the
 * views in one transaction. Schemas, views and transactional DDL work the same on Postgres and PGlite,
 * and readers never need to know a generation number.
 */
export interface ProjectionBase<Handled extends EventDefinition> {
  /** Lower-case identifier: names the checkpoint and the schemas (`rm_<name>_<generation>`). */
  readonly name: string;
  /**
   * Bump when `setup` or the row updates change. A runner refuses to apply events to tables that another
   * version built; `npm run projections -- rebuild <name>` builds them anew.
   */
  readonly version: number;
  readonly handles: readonly Handled[];
  /**
   * The stream-id prefixes its events come from (`org-`, `account-`): the runner then reads only those
   * streams, and its checkpoint moves past the others without reading them. Leave it out to read the
   * whole log. Every event type of `handles` must be written to a stream with one of these prefixes.
   */
  readonly streams?: readonly string[];
  /** Every table `setup` creates; each one is served as a view of the same name in `public`. */
  readonly tables: readonly string[];
  /** Creates the tables (and their indexes) with unqualified names. */
  setup(trx: Transaction<object>): Promise<void>;
}

/** Row updates one event at a time: the simple form, one or more statements per event. */
export interface PerEventProjection<Handled extends EventDefinition = EventDefinition> extends ProjectionBase<Handled> {
  apply(trx: Transaction<object>, event: EventOf<Handled>): Promise<void>;
  readonly applyBatch?: undefined;
}

/**
 * Row updates for a batch at once, in log order: for read models that can fold many events into few
 * statements (sums per key and day). Each statement is a round trip (about 7,000 a second on a small
 * Postgres), so folding is what makes a rebuild of a long log fast.
 */
export interface BatchProjection<Handled extends EventDefinition = EventDefinition> extends ProjectionBase<Handled> {
  applyBatch(trx: Transaction<object>, events: readonly EventOf<Handled>[]): Promise<void>;
  readonly apply?: undefined;
}

export type Projection<Handled extends EventDefinition = EventDefinition> = PerEventProjection<Handled> | BatchProjection<Handled>;

const NAME_PATTERN = /^[a-z][a-z0-9_]{0,39}$/;
const TABLE_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;

/** Checks the names once, where the projection is written, and infers the event type of `apply`. */
export function defineProjection<const Handled extends EventDefinition>(projection: PerEventProjection<Handled>): PerEventProjection<Handled>;
export function defineProjection<const Handled extends EventDefinition>(projection: BatchProjection<Handled>): BatchProjection<Handled>;
export function defineProjection<const Handled extends EventDefinition>(projection: Projection<Handled>): Projection<Handled> {
  if (!NAME_PATTERN.test(projection.name)) throw new TypeError(`projection name ${projection.name} must match ${NAME_PATTERN}`);
  if (!Number.isInteger(projection.version) || projection.version < 1) throw new TypeError(`projection ${projection.name}: version must be an integer >= 1`);
  for (const table of projection.tables) {
    if (!TABLE_PATTERN.test(table)) throw new TypeError(`projection ${projection.name}: table name ${table} must match ${TABLE_PATTERN}`);
  }
  if (projection.handles.length === 0) throw new TypeError(`projection ${projection.name} handles no event type`);
  if (projection.streams?.some((prefix) => prefix.length === 0)) throw new TypeError(`projection ${projection.name}: an empty stream prefix would match every stream; leave \`streams\` out instead`);
  return projection;
}

export function generationSchema(projectionName: string, generation: number): string {
  return `rm_${projectionName}_${generation}`;
}
