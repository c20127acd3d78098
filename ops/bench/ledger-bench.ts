/**
 * Ledger benchmark (not a test): `npx tsx ops/bench/ledger-bench.ts`
 *
 * 1. reserve+settle pairs per second for one hot organization and for 100 organizations, with 256
 *    requests in flight, on the Postgres event store (the account service batches each account's
 *    commands into one append);
 * 2. a rebuild of the ledger read models from the log those pairs wrote (events per second);
 * 3. the time to load an account with 1,000,000 events in its history: from its snapshot and the tail
 *    (what the gateway does), and by replaying the whole stream (what it never does).
 * Targets on the 2-core machine: ≥ 5,000 pairs/s for one hot organization; load < 200 ms.
 *
 * Env: BENCH_SECONDS (20), BENCH_IN_FLIGHT (256), BENCH_HISTORY (1,000,000 events), BENCH_ORGS (the
 * organization counts of step 1, comma-separated; default "1,100": 1 and 100), BENCH_GROUP_COMMIT=off
 * (the account service appends each account's batch on its own, as before the group commit across
 * streams; for a comparison in one run).
 */
import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { systemClock } from '../../src/clock.js';
import { migrateToLatest, openPostgres } from '../../src/db/database.js';
import { PostgresEventStore } from '../../src/eventstore/postgres/postgres-event-store.js';
import { AccountService } from '../../src/ledger/account-service.js';
import { AccountSnapshotStore } from '../../src/ledger/account-snapshot.js';
import { ledgerProjection } from '../../projections/ledger-projection.js';
import { eventCatalogue } from '../../projections/registry.js';
import { rebuildProjection } from '../../projections/rebuild-projection.js';
import { withBenchDatabase } from './lib/bench-database.js';
import { cpuSecondsOf, cpuSpent, postgresBackendPids } from './lib/os-usage.js';
import { createUsage } from '../../src/billing/usage.js';

const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 256);
// Long enough to show a cost that grows with the stream's length (an append that scanned the stream
// once ran at 6,000 pairs/s for five seconds and 1,300 after thirty).
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const HISTORY = Number(process.env.BENCH_HISTORY ?? 1_000_000);
const ORGANIZATION_COUNTS = (process.env.BENCH_ORGS ?? '1,100').split(',').map(Number);
const GROUP_COMMIT = process.env.BENCH_GROUP_COMMIT !== 'off';
const POOL_SIZE = 10;
const ADMIN_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

await withBenchDatabase('ledger', async (url) => {
  const database = await openPostgres({ url, poolSize: POOL_SIZE });
  await migrateToLatest(database);
  const store = new PostgresEventStore(database);
  const snapshots = new AccountSnapshotStore(database.kysely);
  try {
    // Without appendMany the account service appends each account's batch on its own.
    const writer = GROUP_COMMIT ? store : new Proxy(store, { get: (target, property) => (property === 'appendMany' ? undefined : Reflect.get(target, property, target)) });
    for (const organizations of ORGANIZATION_COUNTS) {
      const service = new AccountService({ store: writer, snapshots, clock: systemClock });
      const orgs = Array.from({ length: organizations }, (_, i) => `org_bench${organizations}_${i}`);
      for (const org of orgs) await service.execute(org, { type: 'AddCredits', amount: 10n ** 15n }, 'admin:bench');
      let pairs = 0;
      let sequence = 0;
      const windows: number[] = [];
      // every connection of the pool open, so that the backends read now are all that will serve the load
      await Promise.all(Array.from({ length: POOL_SIZE }, () => sql`select pg_sleep(0.05)`.execute(database.kysely)));
      const backends = await postgresBackendPids(ADMIN_POSTGRES_URL, [url]);
      const postgresBefore = cpuSecondsOf(backends);
      const cpuBefore = process.cpuUsage();
      const sampler = setInterval(() => windows.push(pairs - windows.reduce((sum, count) => sum + count, 0)), 5_000);
      const deadline = Date.now() + SECONDS * 1000;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async (_, lane) => {
          while (Date.now() < deadline) {
            const org = orgs[(lane + sequence) % orgs.length]!;
            const id = `gen-b${organizations}x${sequence++}`; // request ids are unique across organizations
            const reserved = await service.execute(
              org,
              {
                type: 'ReserveFunds',
                reservationId: id,
                endpoint: 'chat',
                owner: { keyId: `key_${lane % 10}`, employeeId: null, teamId: null, spaceId: null },
                model: 'openai/gpt-4o-mini',
                category: 'text',
                amount: 1_000_000n,
                price: { version: null, serviceTier: null }, deadline: new Date(Date.now() + 600_000),
                limits: { key: { daily: 10n ** 14n } },
                accessRevisions: {},
              },
              id,
            );
            if (!('events' in reserved.decision)) throw new Error('reserve refused in the benchmark');
            await service.execute(org, { type: 'SettleReservation', reservationId: id, cost: 400_000n, usage: createUsage({ inputTokens: 100, outputTokens: 50 }) }, id);
            pairs++;
          }
        }),
      );
      clearInterval(sampler);
      const seconds = (performance.now() - started) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const postgresSeconds = cpuSpent(postgresBefore, cpuSecondsOf(backends));
      const perWindow = windows.map((count) => Math.round(count / 5)).join(', ');
      console.log(
        `reserve+settle, ${organizations === 1 ? 'one hot organization' : `${organizations} organizations`}: ${Math.round(pairs / seconds)} pairs/s, ` +
          `CPU a pair: this process ${Math.round((cpu.user + cpu.system) / pairs)} µs, ` +
          `Postgres ${postgresSeconds === undefined ? 'n/a' : Math.round((postgresSeconds * 1e6) / pairs)} µs (${pairs} pairs, ${IN_FLIGHT} in flight, group commit ${GROUP_COMMIT ? 'on' : 'off'}; per 5 s: ${perWindow})`,
      );
    }

    // What an admin does after changing the ledger projection: rebuild it from the whole log.
    const rebuilt = await rebuildProjection({ database, store, catalogue: eventCatalogue, projection: ledgerProjection });
    const rebuildSeconds = rebuilt.elapsedMs / 1000;
    console.log(`rebuild of the ledger read models: ${rebuilt.eventsProcessed} events in ${rebuildSeconds.toFixed(1)} s, ${Math.round(Number(rebuilt.eventsProcessed) / rebuildSeconds)} events/s`);

    // An account with a long history, written in large appends so that preparing it stays quick.
    const org = 'org_history';
    const stream = `account-${org}`;
    const occurredAt = new Date().toISOString();
    let revision: bigint | 'no_stream' = 'no_stream';
    const appendStarted = performance.now();
    const firstCredit = { id: randomUUID(), type: 'CreditsAdded', data: { amount: String(10n ** 15n), idempotencyKey: null }, metadata: { schemaVersion: 1, occurredAt, causedBy: 'admin:bench' } };
    revision = (await store.append(stream, [firstCredit], { expectedRevision: revision })).nextExpectedRevision;
    for (let written = 1; written < HISTORY; ) {
      const batch = [];
      for (let i = 0; i < 2_000 && written < HISTORY; i += 2, written += 2) {
        const id = `gen-h${written}`;
        batch.push({ id: randomUUID(), type: 'FundsReserved', data: { reservationId: id, keyId: 'key_h', employeeId: null, teamId: null, spaceId: null, model: 'openai/gpt-4o-mini', category: 'text', amount: '1000', priceVersion: null, serviceTier: null, deadline: occurredAt }, metadata: { schemaVersion: 1, occurredAt, causedBy: id } });
        batch.push({ id: randomUUID(), type: 'ReservationSettled', data: { reservationId: id, cost: '900', usage: {}, overrun: '0' }, metadata: { schemaVersion: 1, occurredAt, causedBy: id } });
      }
      revision = (await store.append(stream, batch, { expectedRevision: revision })).nextExpectedRevision;
    }
    console.log(`prepared an account with ${Number(revision) + 1} events in ${((performance.now() - appendStarted) / 1000).toFixed(1)} s`);

    const replayStarted = performance.now();
    const replaying = new AccountService({ store, snapshots, clock: systemClock });
    const replayed = await replaying.balance(org);
    console.log(`load by replaying the whole stream: ${Math.round(performance.now() - replayStarted)} ms (balance ${replayed.balance})`);

    // The gateway's path: a snapshot (the service writes one every 1,000 events), then only the tail.
    await replaying.saveSnapshot(org);
    const timings: number[] = [];
    for (let i = 0; i < 20; i++) {
      const loadStarted = performance.now();
      const fresh = new AccountService({ store, snapshots, clock: systemClock });
      await fresh.balance(org);
      timings.push(performance.now() - loadStarted);
    }
    timings.sort((a, b) => a - b);
    console.log(`load from snapshot + tail: p50 ${timings[10]!.toFixed(1)} ms, max ${timings[19]!.toFixed(1)} ms`);
  } finally {
    await store.close();
    await database.close();
  }
});
