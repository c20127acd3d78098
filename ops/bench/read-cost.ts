/**
 * What reading an event costs (not a test): `npx tsx ops/bench/read-cost.ts`
 *
 * Appends 2,000 events shaped like reservations to one stream of a scratch database, then reads them back
 * 100 times as a stream (`readStream`, what an account's catch-up does) and 100 times from the log
 * (`readAll`, what a projection runner does), in five rounds. Prints, for each round, the CPU this process
 * spent an event read (row parsing, envelope check, the event's object), and at the end the CPU of the
 * Postgres backends an event read (from /proc, in ticks of 10 ms, so only the total is worth reading).
 *
 * Env: BENCH_POSTGRES_URL.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { migrateToLatest, openPostgres } from '../../src/db/database.js';
import { PostgresEventStore } from '../../src/eventstore/postgres/postgres-event-store.js';
import { withBenchDatabase } from './lib/bench-database.js';
import { cpuSecondsOf, cpuSpent } from './lib/os-usage.js';

const EVENTS = 2_000;
const READS_A_ROUND = 20;
const ROUNDS = 5;

await withBenchDatabase('read_cost', async (url) => {
  const database = await openPostgres({ url, poolSize: 2 });
  await migrateToLatest(database);
  const store = new PostgresEventStore(database);
  try {
    const occurredAt = new Date().toISOString();
    const reservation = (i: number) => ({
      id: randomUUID(),
      type: 'FundsReserved',
      data: { reservationId: `gen-r${i}`, keyId: 'key_r', employeeId: null, teamId: null, spaceId: null, model: 'openai/gpt-4o-mini', category: 'text', amount: '1000000', deadline: occurredAt },
      metadata: { schemaVersion: 1, occurredAt, causedBy: `gen-r${i}` },
    });
    await store.append('account-org_read', Array.from({ length: EVENTS }, (_, i) => reservation(i)), { expectedRevision: 'no_stream' });
    for (let i = 0; i < 5; i++) await store.readStream('account-org_read'); // warm-up

    const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database()`.execute(database.kysely);
    const backends = rows.map((row) => row.pid);
    const postgresBefore = cpuSecondsOf(backends);
    const perRound: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const before = process.cpuUsage();
      for (let i = 0; i < READS_A_ROUND; i++) {
        await store.readStream('account-org_read');
        await store.readAll({ maxCount: EVENTS });
      }
      const spent = process.cpuUsage(before);
      perRound.push(((spent.user + spent.system) / (READS_A_ROUND * 2 * EVENTS)).toFixed(2));
    }
    const postgres = cpuSpent(postgresBefore, cpuSecondsOf(backends));
    const postgresPerEvent = postgres === undefined ? 'n/a' : ((postgres * 1e6) / (ROUNDS * READS_A_ROUND * 2 * EVENTS)).toFixed(2);
    console.log(`CPU an event read: this process ${perRound.join(', ')} µs (each round); Postgres ${postgresPerEvent} µs (all rounds)`);
  } finally {
    await store.close();
    await database.close();
  }
});
