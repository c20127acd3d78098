/**
 * `npm run bench`: what billing costs over a bare pass-through proxy, all measured in ONE run against the
 * same fake provider (DESIGN.md section 10). Not a test. For each target, non-streaming chat with billing on:
 * - throughput at 64 connections (autocannon), and the CPU time a request (user + system, from /proc) of the
 *   target's own processes, of the Postgres backends of its database and of the benchmark's private Redis;
 * - latency at a fixed 500 requests/s, and streaming time to first byte at 100 requests/s (lib/paced-load.ts),
 *   from a provider whose first byte takes BENCH_PROVIDER_FIRST_BYTE_MS (default 20; a fast real model);
 * - the peak RSS of the target's process;
 * - with the embedded target, afterwards: the RSS of an idle embedded gateway after a first start and after a
 *   restart (lib/idle-embedded-memory.ts; about 70 s).
 * It prints one table (lib/bench-report.ts) and writes the figures as JSON under .bench/ (path printed).
 * Each server runs in its own process; the load generators run in this one. The gateways and the projection
 * worker run compiled (`npm run build` first, then `node dist/…`), as `npm start` runs them.
 *
 * Env: BENCH_SECONDS (default 10), BENCH_WARM_UP_SECONDS (5, for each process serving a target),
 * BENCH_CONNECTIONS (64), BENCH_PACED_RATE (500), BENCH_STREAM_RATE (100), BENCH_PACED_SECONDS (5),
 * BENCH_POSTGRES_URL, BENCH_REDIS_URL (default: a private redis-server when installed, else the local one),
 * BENCH_PROFILE=1 writes CPU profiles of every gateway and of the projection worker to .bench/,
 * BENCH_ONLY=proxy,production (any of direct, proxy, production, many-organizations, worker, embedded,
 * two-instances) loads only those targets (the bare proxy is always measured: it is the floor of the ratios).
 * `many-organizations` (with `production`) loads the production gateway again, with one organization and
 * key per connection: what many organizations at once cost a request against one.
 * `worker` is production mode with PROJECTIONS=off and the projection worker in its own process (`npm run
 * projections -- run`). `two-instances` is two production gateways on one database and one Redis, the load
 * of ONE organization split between them (the first runs the projections, the second has PROJECTIONS=off, so
 * the projection work is the same as one instance's); it is compared with `production`, and the event-store
 * conflicts a request (appends refused because the other instance had appended) are read from their /metrics.
 * The same two processes are then loaded with one organization each, the control that shows what splitting
 * the load between two processes costs without a shared account. BENCH_SCALE_ROUNDS (default 5) then measures
 * these three again in rounds, back to back, and reports the median ratios (lib/scale-rounds.ts); 0 skips them.
 * BENCH_NODE_FLAGS adds Node flags to the gateways.
 * BENCH_BEFORE=<git ref> (with `production` or `embedded`) builds that commit's gateway in a worktree under .bench/ and
 * loads it too, just before today's gateway of that mode (BENCH_BEFORE_LAST=1: just after it), with its own
 * database or data directory: the table then shows the code before a change beside it, in the same run (lib/before-worktree.ts).
 * Run it both ways round: the second of two targets measured back to back tends to do a little better.
 * When BENCH_POSTGRES_URL's server keeps `pg_stat_statements`, each target database's statements are
 * printed after the table, most time first (lib/statement-breakdown.ts).
 *
 * At the end the balance equation of every gateway's ledger is checked by its audit (a replay of the log);
 * a mismatch fails the run.
 */
import { Redis } from 'ioredis';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBase62 } from '../../src/ids/random-id.js';
import { freePort } from '../free-port.js';
import { withBenchDatabase } from './lib/bench-database.js';
import { buildGateway, createBenchKey, DELAYED_BENCH_MODEL, PROJECTION_WORKER_ENTRY, startGateway, startProcess, stop, verifyBalances, type Running } from './lib/bench-processes.js';
import { startBenchRedis } from './lib/bench-redis.js';
import { printBalances, printReport, writeReport, type TargetResult } from './lib/bench-report.js';
import { describeIdleMemory, measureIdleEmbedded, type IdleMemory } from './lib/idle-embedded-memory.js';
import { measure, type MeasureSettings, type Target } from './lib/measure.js';
import { buildBefore } from './lib/before-worktree.js';
import { printStatements, readStatements, resetStatements, type StatementBreakdown } from './lib/statement-breakdown.js';
import { measureScaleRounds, printScaleRounds, scaleRoundRatios, type ScaleRound } from './lib/scale-rounds.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const ONLY = new Set((process.env.BENCH_ONLY ?? 'direct,proxy,production,many-organizations,worker,embedded,two-instances').split(',').concat('proxy'));
/** The organizations of the `many-organizations` target: one per connection. */
const MANY_ORGANIZATIONS = CONNECTIONS;
const ADMIN_TOKEN = `bench-admin-${randomBase62(20)}`;
/** Every gateway of this run writes under it (rate limits, BullMQ); removed at the end. */
const REDIS_PREFIX = `gwbench:${randomBase62(6)}:`;
const BODY = JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello in one short sentence.' }], max_tokens: 64 });
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 500);
const STREAM_RATE = Number(process.env.BENCH_STREAM_RATE ?? 100);
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 5);
const ADMIN_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** The latency loads ask for the model the fake provider answers PROVIDER_FIRST_BYTE_MS late. */
const PACED_BODY = JSON.stringify({ ...(JSON.parse(BODY) as object), model: DELAYED_BENCH_MODEL });
const STREAM_BODY = JSON.stringify({ ...(JSON.parse(PACED_BODY) as object), stream: true });
const PROFILE = Boolean(process.env.BENCH_PROFILE);
const SCALE_ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 5);
const BEFORE_LAST = process.env.BENCH_BEFORE_LAST === '1';

buildGateway();
const before = process.env.BENCH_BEFORE && (ONLY.has('production') || ONLY.has('embedded')) ? buildBefore(process.env.BENCH_BEFORE) : undefined;
const directory = mkdtempSync(join(tmpdir(), 'gw-bench-'));
mkdirSync('.bench', { recursive: true });
const started: Running[] = [];
const redis = await startBenchRedis();
const REDIS_URL = redis.url;
let failed = false;
try {
  await withBenchDatabase('gateway', (databaseUrl) => withBenchDatabase('worker', (workerDatabaseUrl) => withBenchDatabase('pair', (pairDatabaseUrl) => withBenchDatabase('before', async (beforeDatabaseUrl) => {
    const fake = await startProcess(['--import', 'tsx', 'ops/bench/lib/serve.ts', 'fake-provider'], {}, /listening (\S+)/);
    started.push(fake);
    const proxy = await startProcess(['--import', 'tsx', 'ops/bench/lib/serve.ts', 'bare-proxy', String(await freePort()), fake.url], {}, /listening (\S+)/);
    started.push(proxy);
    const gatewaySettings = (name: string, root?: string) => ({ adminToken: ADMIN_TOKEN, fakeUrl: fake.url, directory: join(directory, name), profile: PROFILE, ...(root ? { root } : {}) });
    const gateway = async (name: string, env: Record<string, string>, root?: string) => {
      const running = await startGateway(env, gatewaySettings(name, root));
      started.push(running);
      return running;
    };
    const targets: Target[] = [];
    /** Gateways whose ledgers are verified at the end: one per event log. */
    const ledgers: { name: string; url: string }[] = [];
    /** The databases whose statements are read at the end, when the server keeps them. */
    const statementDatabases: { label: string; url: string }[] = [];
    const pidsOf = (...runnings: Running[]) => runnings.map((running) => running.child.pid!);
    const chat = { path: '/v1/chat/completions' };
    // the fake's URL is a base URL with a path (…/v1): the load generators take an origin and a path
    const fakeBase = new URL(fake.url);
    if (ONLY.has('direct')) {
      const path = `${fakeBase.pathname.replace(/\/$/, '')}/chat/completions`;
      targets.push({ name: 'direct (fake provider)', entries: [{ origin: fakeBase.origin, headers: {} }], path, pids: pidsOf(fake), databases: [], usesRedis: false });
    }
    const floorTarget: Target = { name: 'bare pass-through proxy', entries: [{ origin: proxy.url, headers: {} }], path: '/chat/completions', pids: pidsOf(proxy), databases: [], usesRedis: false };
    targets.push(floorTarget);
    if (ONLY.has('embedded')) {
      // Measured before the targets that load the shared Postgres server: measured after them, it ran beside
      // that server's checkpoints and autovacuum of their databases (the machine's CPU a request 1,202 µs
      // against 666–722 µs measured alone, docs/performance.md), which the embedded gateway does not use.
      const embeddedTarget = async (directoryName: string, name: string, root?: string): Promise<Target> => {
        const embedded = await gateway(directoryName, {}, root);
        const { key } = await createBenchKey(embedded.url, ADMIN_TOKEN);
        ledgers.push({ name, url: embedded.url });
        return { name, entries: [{ origin: embedded.url, headers: { authorization: `Bearer ${key}` } }], ...chat, pids: pidsOf(embedded), databases: [], usesRedis: false };
      };
      const now = await embeddedTarget('embedded', 'gateway, embedded mode');
      const earlier = before ? await embeddedTarget('embedded-before', `gateway, embedded mode, before (${before.commit})`, before.root) : undefined;
      targets.push(...(earlier === undefined ? [now] : BEFORE_LAST ? [now, earlier] : [earlier, now]));
    }
    let oneInstance: Target | undefined;
    let beforeTarget: Target | undefined;
    if (before && ONLY.has('production')) {
      const earlier = await gateway('before', { DATABASE_URL: beforeDatabaseUrl, REDIS_URL, REDIS_PREFIX: `${REDIS_PREFIX}before:` }, before.root);
      const { key } = await createBenchKey(earlier.url, ADMIN_TOKEN);
      const name = `gateway, production mode, before (${before.commit})`;
      beforeTarget = { name, entries: [{ origin: earlier.url, headers: { authorization: `Bearer ${key}` } }], ...chat, pids: pidsOf(earlier), databases: [beforeDatabaseUrl], usesRedis: true };
      if (!BEFORE_LAST) targets.push(beforeTarget);
      ledgers.push({ name, url: earlier.url });
      statementDatabases.push({ label: name, url: beforeDatabaseUrl });
    }
    if (ONLY.has('production')) {
      const production = await gateway('production', { DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: `${REDIS_PREFIX}production:` });
      const { key } = await createBenchKey(production.url, ADMIN_TOKEN);
      oneInstance = { name: 'gateway, production mode', entries: [{ origin: production.url, headers: { authorization: `Bearer ${key}` } }], ...chat, pids: pidsOf(production), databases: [databaseUrl], usesRedis: true, gateways: { urls: [production.url], adminToken: ADMIN_TOKEN } };
      targets.push(oneInstance);
      if (beforeTarget && BEFORE_LAST) targets.push(beforeTarget);
      ledgers.push({ name: 'production', url: production.url });
      statementDatabases.push({ label: `gateway, production mode${ONLY.has('many-organizations') ? ' (and its many organizations)' : ''}`, url: databaseUrl });
      if (ONLY.has('many-organizations')) {
        // The same process, the load spread over many organizations (one key and connection each): their
        // accounts' batches share writes (group commit across accounts), where one organization has one
        // batch in flight at a time.
        const keys = [];
        for (let index = 0; index < MANY_ORGANIZATIONS; index++) keys.push(await createBenchKey(production.url, ADMIN_TOKEN));
        targets.push({
          ...oneInstance,
          name: `gateway, production mode, ${MANY_ORGANIZATIONS} organizations`,
          entries: keys.map(({ key }) => ({ origin: production.url, headers: { authorization: `Bearer ${key}` } })),
        });
      }
    }
    if (ONLY.has('worker')) {
      const split = await gateway('worker', { DATABASE_URL: workerDatabaseUrl, PROJECTIONS: 'off', REDIS_URL, REDIS_PREFIX: `${REDIS_PREFIX}worker:` });
      const worker = await startProcess([...(PROFILE ? ['--cpu-prof', '--cpu-prof-dir', '.bench'] : []), PROJECTION_WORKER_ENTRY, 'run'], { DATABASE_URL: workerDatabaseUrl }, /(following the event log)/);
      started.push(worker);
      const { key } = await createBenchKey(split.url, ADMIN_TOKEN);
      targets.push({ name: 'gateway + projection worker, production mode', entries: [{ origin: split.url, headers: { authorization: `Bearer ${key}` } }], ...chat, pids: pidsOf(split, worker), databases: [workerDatabaseUrl], usesRedis: true });
      ledgers.push({ name: 'worker', url: split.url });
    }
    let twoInstances: Target | undefined;
    let twoInstancesApart: Target | undefined;
    if (ONLY.has('two-instances')) {
      // The account link on: the first instance to serve the organization owns its account, the other
      // forwards its commands there (src/ledger/owners). BENCH_ACCOUNT_LINK=off measures them without it.
      const link: Record<string, string> = process.env.BENCH_ACCOUNT_LINK === 'off' ? {} : { ACCOUNT_LINK_PORT: '0', ACCOUNT_LINK_HOST: '127.0.0.1', ACCOUNT_LINK_SECRET: 'bench-account-link-secret' };
      const shared = { DATABASE_URL: pairDatabaseUrl, REDIS_URL, REDIS_PREFIX: `${REDIS_PREFIX}pair:`, ...link };
      const first = await gateway('pair-1', shared);
      const second = await gateway('pair-2', { ...shared, PROJECTIONS: 'off' });
      // one organization and one key, used through both instances
      const { key } = await createBenchKey(first.url, ADMIN_TOKEN);
      const headers = { authorization: `Bearer ${key}` };
      twoInstances = {
        name: 'two gateways, production mode, one organization',
        entries: [{ origin: first.url, headers }, { origin: second.url, headers }],
        ...chat,
        pids: pidsOf(first, second),
        databases: [pairDatabaseUrl],
        usesRedis: true,
        gateways: { urls: [first.url, second.url], adminToken: ADMIN_TOKEN },
      };
      targets.push(twoInstances);
      // The control: the same two processes, each with its own organization. What two instances cost over
      // one here comes from splitting the load between processes, not from sharing an account's stream.
      const own = [await createBenchKey(first.url, ADMIN_TOKEN), await createBenchKey(first.url, ADMIN_TOKEN)];
      twoInstancesApart = {
        ...twoInstances,
        name: 'two gateways, production mode, one organization each',
        entries: [{ origin: first.url, headers: { authorization: `Bearer ${own[0]!.key}` } }, { origin: second.url, headers: { authorization: `Bearer ${own[1]!.key}` } }],
      };
      targets.push(twoInstancesApart);
      ledgers.push({ name: 'two instances', url: first.url });
    }

    const settings: MeasureSettings = {
      body: BODY,
      pacedBody: PACED_BODY,
      streamBody: STREAM_BODY,
      connections: CONNECTIONS,
      seconds: SECONDS,
      warmUpSeconds: WARM_UP_SECONDS,
      pacedRate: PACED_RATE,
      streamRate: STREAM_RATE,
      pacedSeconds: PACED_SECONDS,
      adminPostgresUrl: ADMIN_POSTGRES_URL,
      redisPid: redis.pid,
    };
    const keepsStatements = statementDatabases.length > 0 && (await resetStatements(ADMIN_POSTGRES_URL).catch(() => false));
    const results: TargetResult[] = [];
    for (const target of targets) results.push(await measure(target, settings));
    const floor = results[targets.indexOf(floorTarget)]!;
    const resultOf = (target: Target | undefined) => (target === undefined ? undefined : results[targets.indexOf(target)]);
    const scaleOut = oneInstance && twoInstances ? { one: resultOf(oneInstance)!, two: resultOf(twoInstances)!, apart: resultOf(twoInstancesApart) } : undefined;
    const scaleRounds: ScaleRound[] =
      oneInstance && twoInstances ? await measureScaleRounds({ one: oneInstance, two: twoInstances, apart: twoInstancesApart }, settings, SCALE_ROUNDS) : [];
    // Read before the audits below replay each log: their reads are not the requests'.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const statements: StatementBreakdown[] = keepsStatements ? await Promise.all(statementDatabases.map(({ label, url }) => readStatements(ADMIN_POSTGRES_URL, url, label))) : [];
    const balances = await verifyLedgers(ledgers);
    failed = balances.some((ledger) => ledger.mismatches.length > 0);
    let idle: IdleMemory | undefined;
    if (ONLY.has('embedded')) {
      // After the loads, with the gateways stopped: an idle process on a quiet machine is what this measures.
      for (const running of started) if (running !== fake && running !== proxy) await stop(running);
      idle = await measureIdleEmbedded(fake.url);
    }
    const reportSettings = { connections: CONNECTIONS, seconds: SECONDS };
    printReport(results, floor, reportSettings, scaleOut);
    printScaleRounds(scaleRounds);
    printBalances(balances);
    printStatements(statements);
    if (idle) console.log(`\n${describeIdleMemory(idle)}`);
    const path = writeReport(results, floor, { ...reportSettings, pacedRate: PACED_RATE, streamRate: STREAM_RATE, pacedSeconds: PACED_SECONDS, nodeFlags: process.env.BENCH_NODE_FLAGS ?? '' }, scaleOut, { rounds: scaleRounds, ratios: scaleRoundRatios(scaleRounds) }, balances, idle);
    console.log(`\nfigures as JSON: ${path}`);
    for (const running of started) {
      if (running.problems.length > 0) console.log(`\nwarnings and errors logged by ${running.url} (the first ${running.problems.length}):\n${running.problems.join('\n')}`);
    }
  }))));
} finally {
  for (const running of started.reverse()) await stop(running).catch(() => {});
  rmSync(directory, { recursive: true, force: true });
  await removeRedisKeys(REDIS_PREFIX).catch((error: unknown) => console.error(`could not remove the Redis keys ${REDIS_PREFIX}*: ${String(error)}`));
  await redis.stop();
}
if (failed) process.exitCode = 1;

/** Each ledger's balance equation, once its projections have caught up with the last settle. */
async function verifyLedgers(ledgers: readonly { name: string; url: string }[]) {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return Promise.all(ledgers.map(async (ledger) => ({ name: ledger.name, ...(await verifyBalances(ledger.url, ADMIN_TOKEN)) })));
}

async function removeRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
