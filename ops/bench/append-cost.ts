/**
 * What an event costs Postgres to append (not a test): `npx tsx ops/bench/append-cost.ts`
 *
 * On a scratch database (BENCH_POSTGRES_URL, default the local server) with the gateway's migrations, one
 * connection writes batches of 16 events shaped like a reservation (the account service's batches are
 * that size under load), and the CPU of the Postgres backend serving it is read from /proc before and after.
 * Three ways, three rounds each, interleaved:
 *   append  the store's append (`append_events_locked`: stream lock, idempotency check, revision update,
 *           insert), in its own transaction, as the gateway appends;
 *   insert  the same rows inserted directly (no lock, no check, no revision), in a transaction each;
 *   parse   the batch's JSON parsed to jsonb and walked, nothing written, in a transaction each;
 *   insert-json  the rows of `insert` into a copy of the events table whose payload columns are `json`
 *           (kept as text, checked but not converted) instead of `jsonb`, from a `json` array;
 *   arrays-jsonb, arrays-json  the same rows sent as parallel arrays (ids, types, data, metadata: one
 *           parameter each, `unnest`), no JSON document around them, into jsonb and into json columns.
 * The difference between `append` and `insert` is what the append function adds to the insert itself; the
 * one between `insert` and `insert-json`, what storing the payload as jsonb costs.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { migrateToLatest, openPostgres } from '../../src/db/database.js';
import { withBenchDatabase } from './lib/bench-database.js';
import { cpuSecondsOf } from './lib/os-usage.js';

const EVENTS_PER_APPEND = 16;
const APPENDS = 1_500;
const STREAMS = 4;
const WAYS = ['append', 'insert', 'parse', 'insert-json', 'arrays-jsonb', 'arrays-json'] as const;

const data = {
  reservationId: `res_${'x'.repeat(24)}`,
  amount: '123456789',
  deadline: new Date().toISOString(),
  model: 'openai/gpt-4o-mini',
  category: 'text',
  keyId: 'key_abcdefghijkl',
  employeeId: null,
  teamId: null,
  spaceId: null,
  maxOutputTokens: 4096,
  inputTokens: 123,
  accessRevisions: { 'key-abc': '3', 'org-x': '5' },
};
const metadata = { schemaVersion: 1, occurredAt: new Date().toISOString(), causedBy: `gen-${'a'.repeat(24)}` };

await withBenchDatabase('append_cost', async (url) => {
  const database = await openPostgres({ url, poolSize: 1 });
  await migrateToLatest(database);
  await database.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`create table events_json (like events including all)`);
    await client.query(`alter table events_json alter column data type json using data::json, alter column metadata type json using metadata::json`);
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const pid = rows[0]!.pid;
    const revisions = new Map<string, number>();
    const batch = () => JSON.stringify(Array.from({ length: EVENTS_PER_APPEND }, () => ({ id: randomUUID(), type: 'FundsReserved', data, metadata })));
    const write = async (way: (typeof WAYS)[number], stream: string) => {
      const last = revisions.get(stream);
      await client.query('begin');
      if (way === 'append') {
        const result = await client.query('select * from append_events_locked($1, $2, $3::jsonb)', [stream, last === undefined ? 'no_stream' : String(last), batch()]);
        if (result.rows[0].outcome !== 'appended') throw new Error(`append refused: ${JSON.stringify(result.rows[0])}`);
      } else if (way === 'insert') {
        await client.query(
          `insert into events (stream_id, revision, event_id, type, data, metadata)
           select $1, $2::bigint + b.ordinality, (b.doc ->> 'id')::uuid, b.doc ->> 'type', b.doc -> 'data', b.doc -> 'metadata'
             from jsonb_array_elements($3::jsonb) with ordinality as b (doc, ordinality)`,
          [stream, last ?? -1, batch()],
        );
      } else if (way === 'insert-json') {
        await client.query(
          `insert into events_json (stream_id, revision, event_id, type, data, metadata)
           select $1, $2::bigint + b.ordinality, (b.doc ->> 'id')::uuid, b.doc ->> 'type', b.doc -> 'data', b.doc -> 'metadata'
             from json_array_elements($3::json) with ordinality as b (doc, ordinality)`,
          [stream, last ?? -1, batch()],
        );
      } else if (way === 'arrays-jsonb' || way === 'arrays-json') {
        const events = Array.from({ length: EVENTS_PER_APPEND }, () => ({ id: randomUUID(), type: 'FundsReserved', data: JSON.stringify(data), metadata: JSON.stringify(metadata) }));
        const type = way === 'arrays-json' ? 'json' : 'jsonb';
        await client.query(
          `insert into ${way === 'arrays-json' ? 'events_json' : 'events'} (stream_id, revision, event_id, type, data, metadata)
           select $1, $2::bigint + b.ordinality, b.id, b.type, b.data, b.metadata
             from unnest($3::uuid[], $4::text[], $5::${type}[], $6::${type}[]) with ordinality as b (id, type, data, metadata, ordinality)`,
          [stream, last ?? -1, events.map((event) => event.id), events.map((event) => event.type), events.map((event) => event.data), events.map((event) => event.metadata)],
        );
      } else {
        await client.query(`select count(*) from jsonb_array_elements($1::jsonb) b (doc) where b.doc -> 'data' is not null and b.doc -> 'metadata' is not null`, [batch()]);
      }
      await client.query('commit');
      if (way !== 'parse') revisions.set(stream, (last ?? -1) + EVENTS_PER_APPEND);
    };
    const measure = async (way: (typeof WAYS)[number], round: number, appends: number) => {
      const before = cpuSecondsOf([pid]).get(pid)!;
      const started = performance.now();
      for (let i = 0; i < appends; i++) await write(way, `account-${way}-${i % STREAMS}`);
      const cpu = cpuSecondsOf([pid]).get(pid)! - before;
      const events = appends * EVENTS_PER_APPEND;
      return `${way} (round ${round}): ${((cpu * 1e6) / events).toFixed(1)} µs of backend CPU an event, ${(((performance.now() - started) * 1e3) / events).toFixed(1)} µs of wall time`;
    };
    for (const way of WAYS) await measure(way, 0, 200); // warm-up
    console.log(`${EVENTS_PER_APPEND} events a transaction, ${APPENDS} transactions a round`);
    for (const round of [1, 2, 3]) for (const way of WAYS) console.log(await measure(way, round, APPENDS));
  } finally {
    await client.end();
  }
});
