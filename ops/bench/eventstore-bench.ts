import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { z } from 'zod';
import { migrateToLatest, openPglite, openPostgres, type Database } from '../../src/db/database.js';
import { defineEvent, EventCatalogue } from '../../src/eventstore/event-catalogue.js';
import type { EventToAppend } from '../../src/eventstore/event-store.js';
import { PostgresEventStore } from '../../src/eventstore/postgres/postgres-event-store.js';
import { defineProjection } from '../../projections/projection.js';
import { rebuildProjection } from '../../projections/rebuild-projection.js';

/**
 * Event store benchmark (not a test): `npx tsx ops/bench/eventstore-bench.ts`.
 * On Postgres (a scratch database `gw_bench_<random>` on BENCH_POSTGRES_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres, dropped at the end) and on in-memory PGlite, it prints:
 * appends/s (one stream and 100 streams, batches of 1 and 50, several writers), readAll events/s,
 * projection rebuild events/s (a trivial projection folding each batch, and one updating a row per
 * event), and subscription latency commit → handler (p50/p99, idle and under write load).
 * Each append phase runs BENCH_SECONDS (default 2) or until it wrote BENCH_MAX_EVENTS (default 40000).
 * Targets (issue 3): rebuild ≥ 20,000 events/s on Postgres; subscription latency p99 < 20 ms.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const MAX_EVENTS = Number(process.env.BENCH_MAX_EVENTS ?? 40_000);
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const BenchEventHappened = defineEvent({ type: 'BenchEventHappened', schemaVersion: 1, schema: z.object({ n: z.number(), note: z.string() }) });
const catalogue = new EventCatalogue([BenchEventHappened]);

/** Folds each batch into one upsert: the shape a fast read model takes. */
const foldingProjection = defineProjection({
  name: 'bench_counts',
  version: 1,
  handles: [BenchEventHappened],
  tables: ['bench_counts'],
  async setup(trx) {
    await sql`create table bench_counts (stream_id text primary key, events bigint not null, total bigint not null)`.execute(trx);
  },
  async applyBatch(trx, events) {
    const byStream = new Map<string, { events: number; total: number }>();
    for (const event of events) {
      const tally = byStream.get(event.streamId) ?? { events: 0, total: 0 };
      tally.events++;
      tally.total += event.data.n;
      byStream.set(event.streamId, tally);
    }
    const rows = [...byStream].map(([stream, tally]) => sql`(${stream}, ${tally.events}::bigint, ${tally.total}::bigint)`);
    await sql`insert into bench_counts as c (stream_id, events, total) values ${sql.join(rows)}
      on conflict (stream_id) do update set events = c.events + excluded.events, total = c.total + excluded.total`.execute(trx);
  },
});

/** The same read model, one upsert per event: bound by database round trips. */
const perEventProjection = defineProjection({
  name: 'bench_counts_each',
  version: 1,
  handles: [BenchEventHappened],
  tables: ['bench_counts_each'],
  async setup(trx) {
    await sql`create table bench_counts_each (stream_id text primary key, events bigint not null, total bigint not null)`.execute(trx);
  },
  async apply(trx, event) {
    await sql`insert into bench_counts_each as c (stream_id, events, total) values (${event.streamId}, 1, ${event.data.n}::bigint)
      on conflict (stream_id) do update set events = c.events + 1, total = c.total + excluded.total`.execute(trx);
  },
});

function benchEvent(n: number): EventToAppend {
  return {
    id: randomUUID(),
    type: 'BenchEventHappened',
    data: { n, note: 'a short payload, about the size of a billing event' },
    metadata: { schemaVersion: 1, occurredAt: new Date().toISOString(), causedBy: 'system:bench' },
  };
}

function report(backend: string, metric: string, value: string): void {
  process.stdout.write(`${backend.padEnd(8)}  ${metric.padEnd(58)}  ${value}\n`);
}
const perSecond = (count: number, ms: number) => Math.round((count / ms) * 1000).toLocaleString('en-US');

async function appendPhase(store: PostgresEventStore, backend: string, streams: number, batch: number, writers: number, tag: string): Promise<void> {
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  let appends = 0;
  let events = 0;
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      for (let index = 0; performance.now() < deadline && events < MAX_EVENTS; index++) {
        const stream = `bench${tag}-${(writer + index * writers) % streams}`;
        await store.append(stream, Array.from({ length: batch }, (_, n) => benchEvent(n)), { expectedRevision: 'any' });
        await new Promise((resolve) => setImmediate(resolve));
        appends++;
        events += batch;
      }
    }),
  );
  const elapsed = performance.now() - started;
  report(backend, `append: ${streams} stream${streams > 1 ? 's' : ''}, batch ${batch}, ${writers} writers`, `${perSecond(appends, elapsed)} appends/s  (${perSecond(events, elapsed)} events/s)`);
}

async function readAllPhase(store: PostgresEventStore, backend: string): Promise<number> {
  const started = performance.now();
  let count = 0;
  let from: Awaited<ReturnType<PostgresEventStore['headPosition']>> = 'start';
  for (;;) {
    const page = await store.readAll({ from, maxCount: 1_000 });
    count += page.length;
    const last = page.at(-1);
    if (!last) break;
    from = last.position;
  }
  report(backend, `readAll (pages of 1000), ${count.toLocaleString('en-US')} events`, `${perSecond(count, performance.now() - started)} events/s`);
  return count;
}

async function rebuildPhase(database: Database, store: PostgresEventStore, backend: string): Promise<void> {
  for (const projection of [foldingProjection, perEventProjection]) {
    const result = await rebuildProjection({ database, store, catalogue, projection });
    const kind = projection.applyBatch ? 'one upsert per batch' : 'one upsert per event';
    report(backend, `rebuild, trivial projection (${kind})`, `${perSecond(Number(result.eventsProcessed), result.elapsedMs)} events/s`);
  }
}

async function latencyPhase(store: PostgresEventStore, backend: string, load: boolean): Promise<void> {
  const prefix = `latency${load ? 'load' : 'idle'}-`;
  const received = new Map<string, number>();
  const returned = new Map<string, number>();
  const subscription = store.subscribe({ from: await store.headPosition(), streamPrefixes: [prefix] }, (event) => {
    received.set(event.id, performance.now());
  });
  await subscription.caughtUp();
  let loading = load;
  const background = load
    ? Promise.all(
        Array.from({ length: 4 }, async (_, writer) => {
          while (loading) {
            await store.append(`benchload-${writer}`, [benchEvent(writer)], { expectedRevision: 'any' });
            // PGlite answers on microtasks alone: without a real yield these loops would starve every timer.
            await new Promise((resolve) => setImmediate(resolve));
          }
        }),
      )
    : Promise.resolve([]);
  const samples = 300;
  for (let index = 0; index < samples; index++) {
    const event = benchEvent(index);
    await store.append(`${prefix}${index % 10}`, [event], { expectedRevision: 'any' });
    // The append has returned, so it has committed: the clock starts here (a delivery that beat the reply counts as 0).
    returned.set(event.id, performance.now());
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  const deadline = Date.now() + 5_000;
  while (received.size < samples && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  loading = false;
  await background;
  await subscription.stop();
  const latencies = [...returned].flatMap(([id, at]) => {
    const got = received.get(id);
    return got === undefined ? [] : [Math.max(0, got - at)];
  });
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(2);
  report(
    backend,
    `subscription latency commit→handler${load ? ', 4 writers busy' : ', idle'} (${latencies.length}/${samples})`,
    `p50 ${at(0.5)} ms  p99 ${at(0.99)} ms  max ${latencies.at(-1)!.toFixed(2)} ms`,
  );
}

async function runOn(backend: string, database: Database): Promise<void> {
  await migrateToLatest(database);
  const store = new PostgresEventStore(database);
  try {
    await appendPhase(store, backend, 1, 1, 4, 'a');
    await appendPhase(store, backend, 1, 50, 4, 'b');
    await appendPhase(store, backend, 100, 1, 8, 'c');
    await appendPhase(store, backend, 100, 50, 8, 'd');
    await readAllPhase(store, backend);
    await rebuildPhase(database, store, backend);
    await latencyPhase(store, backend, false);
    await latencyPhase(store, backend, true);
  } finally {
    await store.close();
  }
}

async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const name = `gw_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const url = new URL(ADMIN_URL);
url.pathname = `/${name}`;
process.stdout.write(`event store benchmark: ${SECONDS} s or ${MAX_EVENTS} events per append phase\n`);
await adminQuery(`create database ${name}`);
try {
  const postgres = await openPostgres({ url: url.toString(), poolSize: 20, applicationName: 'eventstore-bench' });
  try {
    await runOn('postgres', postgres);
  } finally {
    await postgres.close();
  }
} finally {
  await adminQuery(`drop database if exists ${name} with (force)`);
}
const pglite = await openPglite();
try {
  await runOn('pglite', pglite);
} finally {
  await pglite.close();
}
process.stdout.write('targets: rebuild >= 20,000 events/s on Postgres; subscription p99 < 20 ms\n');
