import { expect } from 'chai';
import { sql } from 'kysely';
import type { Database } from '../../../src/db/database.js';
import type { EventToAppend } from '../../../src/eventstore/event-store.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import { openMigratedDatabase, type DatabaseKind } from '../../support/databases.js';
import { creditsAdded, creditsAddedV1, noteAdded, usageCharged } from '../../support/sample-projection.js';

/**
 * One database per kind for a whole file (PGlite takes seconds to start); `reset` empties the log, the
 * checkpoints and every generation between tests.
 */
export interface ProjectionKit {
  readonly database: Database;
  readonly store: PostgresEventStore;
  dispose(): Promise<void>;
}

export async function openProjectionKit(kind: DatabaseKind): Promise<ProjectionKit> {
  const { database, dispose } = await openMigratedDatabase(kind, 'projections');
  const store = new PostgresEventStore(database, { pollIntervalMs: 100 });
  return {
    database,
    store,
    dispose: async () => {
      await store.close();
      await dispose();
    },
  };
}

export async function resetDatabase(database: Database): Promise<void> {
  const { rows: schemas } = await sql<{ name: string }>`select nspname as name from pg_namespace where nspname like 'rm\\_%'`.execute(database.kysely);
  for (const { name } of schemas) await sql`drop schema ${sql.id(name)} cascade`.execute(database.kysely);
  const { rows: views } = await sql<{ name: string }>`select viewname as name from pg_views where schemaname = 'public' and viewname like 'sample\\_%'`.execute(database.kysely);
  for (const { name } of views) await sql`drop view ${sql.id('public', name)}`.execute(database.kysely);
  await sql`truncate events, event_streams, projection_checkpoints restart identity`.execute(database.kysely);
}

/** A table (or view) as text, row by row in a fixed order: two dumps are equal only if every byte is. */
export async function dumpTable(database: Database, table: string): Promise<string> {
  const { rows } = await sql<{ row: string }>`select t::text as row from ${sql.table(table)} t order by 1`.execute(database.kysely);
  return rows.map((row) => row.row).join('\n');
}

export interface SampleLog {
  /** Per account: credited and charged nanodollars, and how many of its events the projection counts. */
  readonly accounts: Map<string, { credited: bigint; charged: bigint; events: number }>;
  readonly models: Map<string, { charged: bigint; requests: number }>;
  eventCount: number;
}

export function emptyLog(): SampleLog {
  return { accounts: new Map(), models: new Map(), eventCount: 0 };
}

/** Appends `batches` batches across a few accounts and models (old-version credits and notes included), and tallies them. */
export async function appendSampleEvents(store: PostgresEventStore, log: SampleLog, batches: number, seed = 0): Promise<void> {
  for (let index = 0; index < batches; index++) {
    const n = seed + index;
    const account = `account-${n % 5}`;
    const events: EventToAppend[] = [];
    const tally = log.accounts.get(account) ?? { credited: 0n, charged: 0n, events: 0 };
    const credit = BigInt(1_000_000_000 + n);
    events.push(n % 7 === 0 ? creditsAddedV1(credit) : creditsAdded(credit));
    tally.credited += credit;
    tally.events++;
    const model = `model-${n % 3}`;
    const charge = BigInt(1_000 + n * 3);
    events.push(usageCharged(charge, model));
    tally.charged += charge;
    tally.events++;
    const byModel = log.models.get(model) ?? { charged: 0n, requests: 0 };
    byModel.charged += charge;
    byModel.requests++;
    log.models.set(model, byModel);
    if (n % 4 === 0) events.push(noteAdded(`note ${n}`));
    log.accounts.set(account, tally);
    await store.append(account, events, { expectedRevision: 'any' });
    log.eventCount += events.length;
  }
}

export async function expectReadModel(database: Database, log: SampleLog, tables = { balances: 'sample_balances', usage: 'sample_usage_by_model' }): Promise<void> {
  const { rows: balances } = await sql<{ account: string; credited: string; charged: string; events: number }>`
    select account, credited::text as credited, charged::text as charged, events from ${sql.table(tables.balances)} order by account`.execute(database.kysely);
  expect(balances).to.deep.equal(
    [...log.accounts.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([account, tally]) => ({ account, credited: tally.credited.toString(), charged: tally.charged.toString(), events: tally.events })),
  );
  const { rows: models } = await sql<{ model: string; charged: string; requests: number }>`
    select model, charged::text as charged, requests from ${sql.table(tables.usage)} order by model`.execute(database.kysely);
  expect(models).to.deep.equal(
    [...log.models.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([model, tally]) => ({ model, charged: tally.charged.toString(), requests: tally.requests })),
  );
}
