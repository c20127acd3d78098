import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../src/db/database.js';
import { generationSchema, type Projection } from './projection.js';

/**
 * The generations of each projection and their checkpoints (table: src/db/migrations/0002-projection-checkpoints.ts).
 * Every change of generations runs in a transaction holding the projection's advisory lock, so two
 * processes starting or rebuilding one projection take turns. (On PGlite there is one session and the
 * transactions already take turns.)
 */
export type GenerationStatus = 'building' | 'active' | 'retired';

/** Notified (payload: the projection's name) when a rebuilt generation is swapped in. */
export const GENERATION_CHANGED_CHANNEL = 'projection_generation_changed';

export interface CheckpointRow {
  readonly projection: string;
  readonly generation: number;
  readonly status: GenerationStatus;
  readonly definition_version: number;
  /** The position of the last event applied; null before the first. */
  readonly position: string | null;
  readonly events_processed: bigint;
  readonly updated_at: Date;
}

const COLUMNS = sql`projection, generation, status, definition_version, position, events_processed, updated_at`;

async function lockProjection(trx: Transaction<object>, name: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`projection:${name}`}))`.execute(trx);
}

export async function readCheckpoint(db: Kysely<object>, name: string, generation: number, forUpdate = false): Promise<CheckpointRow | undefined> {
  const { rows } = await sql<CheckpointRow>`select ${COLUMNS} from projection_checkpoints
    where projection = ${name} and generation = ${generation} ${forUpdate ? sql`for update` : sql``}`.execute(db);
  return rows[0];
}

export async function listCheckpoints(db: Kysely<object>): Promise<CheckpointRow[]> {
  const { rows } = await sql<CheckpointRow>`select ${COLUMNS} from projection_checkpoints order by projection, generation`.execute(db);
  return rows;
}

/** Makes the search path of this transaction start with the generation's schema (see projection.ts). */
export async function useGeneration(trx: Transaction<object>, name: string, generation: number): Promise<void> {
  await sql.raw(`set local search_path to "${generationSchema(name, generation)}", public`).execute(trx);
}

async function createGeneration(trx: Transaction<object>, projection: Projection, status: GenerationStatus): Promise<number> {
  const { rows } = await sql<{ next: number }>`select coalesce(max(generation), 0) + 1 as next from projection_checkpoints
    where projection = ${projection.name}`.execute(trx);
  const generation = rows[0]!.next;
  const schema = generationSchema(projection.name, generation);
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(trx);
  await sql`create schema ${sql.id(schema)}`.execute(trx);
  await useGeneration(trx, projection.name, generation);
  await projection.setup(trx);
  await sql`insert into projection_checkpoints (projection, generation, status, definition_version)
    values (${projection.name}, ${generation}, ${status}, ${projection.version})`.execute(trx);
  return generation;
}

async function pointViewsAt(trx: Transaction<object>, projection: Projection, generation: number): Promise<void> {
  const schema = generationSchema(projection.name, generation);
  for (const table of projection.tables) {
    await sql`drop view if exists public.${sql.id(table)}`.execute(trx);
    await sql`create view public.${sql.id(table)} as select * from ${sql.id(schema, table)}`.execute(trx);
  }
}

/** The generation serving reads; the first start of a projection creates generation 1 (empty, from the start). */
export async function ensureActiveGeneration(database: Database, projection: Projection): Promise<CheckpointRow> {
  return database.kysely.transaction().execute(async (trx) => {
    await lockProjection(trx, projection.name);
    const { rows } = await sql<CheckpointRow>`select ${COLUMNS} from projection_checkpoints
      where projection = ${projection.name} and status = 'active'`.execute(trx);
    if (rows[0]) return rows[0];
    const generation = await createGeneration(trx, projection, 'active');
    await pointViewsAt(trx, projection, generation);
    return (await readCheckpoint(trx, projection.name, generation))!;
  });
}

/** A fresh, empty generation for a rebuild; an abandoned earlier rebuild of the projection is dropped. */
export async function createBuildingGeneration(database: Database, projection: Projection): Promise<number> {
  const abandoned = await database.kysely.transaction().execute(async (trx) => {
    await lockProjection(trx, projection.name);
    const { rows } = await sql<{ generation: number }>`select generation from projection_checkpoints
      where projection = ${projection.name} and status in ('building', 'retired')`.execute(trx);
    return rows.map((row) => row.generation);
  });
  for (const generation of abandoned) await dropGeneration(database, projection.name, generation);
  return database.kysely.transaction().execute(async (trx) => {
    await lockProjection(trx, projection.name);
    return createGeneration(trx, projection, 'building');
  });
}

export class GenerationSwapError extends Error {
  override name = 'GenerationSwapError';
}

/**
 * Serves `generation` from now on: repoints the views and marks the old active generation retired, in one
 * transaction, then drops the retired schemas. The rebuilt generation must still be where its builder
 * left it (`position`); a runner of the old generation notices the swap at its next batch and moves over.
 */
export async function activateGeneration(database: Database, projection: Projection, generation: number, position: string | null): Promise<number[]> {
  const retired = await database.kysely.transaction().execute(async (trx) => {
    await lockProjection(trx, projection.name);
    const { rows } = await sql<CheckpointRow>`select ${COLUMNS} from projection_checkpoints
      where projection = ${projection.name} order by generation for update`.execute(trx);
    const building = rows.find((row) => row.generation === generation);
    if (!building || building.status !== 'building') throw new GenerationSwapError(`${projection.name}: generation ${generation} is not being built (another rebuild replaced it?)`);
    if (building.position !== position) throw new GenerationSwapError(`${projection.name}: generation ${generation} moved while being swapped in`);
    await pointViewsAt(trx, projection, generation);
    await sql`update projection_checkpoints set status = 'retired', updated_at = now()
      where projection = ${projection.name} and status = 'active'`.execute(trx);
    await sql`update projection_checkpoints set status = 'active', updated_at = now()
      where projection = ${projection.name} and generation = ${generation}`.execute(trx);
    // Runners of the old generation move over now rather than at their next batch, which may be a long
    // way off when no events come: until they do, the new generation misses what they applied to the old.
    await sql`select pg_notify(${GENERATION_CHANGED_CHANNEL}, ${projection.name})`.execute(trx);
    return rows.filter((row) => row.status === 'active').map((row) => row.generation);
  });
  for (const old of retired) await dropGeneration(database, projection.name, old);
  return retired;
}

/** Drops a generation that does not serve reads (never the active one). */
export async function dropGeneration(database: Database, name: string, generation: number): Promise<void> {
  await database.kysely.transaction().execute(async (trx) => {
    await lockProjection(trx, name);
    const row = await readCheckpoint(trx, name, generation, true);
    if (row?.status === 'active') throw new GenerationSwapError(`${name}: generation ${generation} serves reads and cannot be dropped`);
    await sql`drop schema if exists ${sql.id(generationSchema(name, generation))} cascade`.execute(trx);
    await sql`delete from projection_checkpoints where projection = ${name} and generation = ${generation}`.execute(trx);
  });
}
