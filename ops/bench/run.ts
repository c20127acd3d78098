/**
 * `npm run bench`: what billing costs over a bare pass-through proxy, all measured in ONE run against the
 * same fake provider (DESIGN.md section 10). Not a test. For each target, non-streaming chat with billing on:
 * - throughput at 64 connections (autocannon), and the CPU time a request (user + system, from /proc) of the
 *   target's own processes, of the Postgres backends of its database and of the benchmark's private Redis;
 * - latency at a fixed 500 requests/s, and streaming time to first byte at 100 requests/s (paced-load.ts);
 * - the peak RSS of the target's process.
 * It prints one table (bench-report.ts) and writes the figures as JSON under .bench/ (path printed).
 * Each server runs in its own process; the load generators run in this one.
 *
 * Env: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (64), BENCH_PACED_RATE (500), BENCH_STREAM_RATE (100),
 * BENCH_PACED_SECONDS (5), BENCH_POSTGRES_URL, BENCH_REDIS_URL (default: a private redis-server when
 * installed, else the local one), BENCH_PROFILE=1 writes CPU profiles of every gateway and of the projection
 * worker to .bench/, BENCH_ONLY=proxy,production (any of direct, proxy, production, worker, embedded) loads
 * only those targets (the bare proxy is always measured: it is the floor of the ratios). `worker` is
 * production mode with PROJECTIONS=off and the projection worker in its own process (`npm run projections --
 * run`). BENCH_NODE_FLAGS adds Node flags to the gateways.
 */
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBase62 } from '../../src/ids/random-id.js';
import { freePort } from '../../test/support/test-services.js';
import { withBenchDatabase } from './bench-database.js';
import { startBenchRedis } from './bench-redis.js';
import { printReport, writeReport, type TargetResult } from './bench-report.js';
import { cpuSecondsOf, cpuSpent, machineCpuSeconds, memoryOf, postgresBackendPids } from './os-usage.js';
import { pacedLoad } from './paced-load.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const ONLY = new Set((process.env.BENCH_ONLY ?? 'direct,proxy,production,worker,embedded').split(',').concat('proxy'));
const ADMIN_TOKEN = `bench-admin-${randomBase62(20)}`;
/** Every gateway of this run writes under it (rate limits, BullMQ); removed at the end. */
const REDIS_PREFIX = `gwbench:${randomBase62(6)}:`;
const BODY = JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello in one short sentence.' }], max_tokens: 64 });

interface Running {
  url: string;
  child: ChildProcess;
}

function startProcess(args: string[], env: Record<string, string>, ready: RegExp): Promise<Running> {
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH!, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start: ${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        // from here on the output (a line per request) is drained, not kept
        child.stdout!.off('data', onData).resume();
        child.stderr!.off('data', onData).resume();
        resolve({ url: match[1]!, child });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
}

async function stop(running: Running): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return; // 'exit' would never come
  running.child.kill('SIGTERM');
  await new Promise((resolve) => running.child.once('exit', resolve));
}

async function startGateway(env: Record<string, string>, fakeUrl: string, directory: string): Promise<{ running: Running; key: string }> {
  mkdirSync(directory, { recursive: true });
  const catalog = join(directory, 'catalog.yaml');
  writeFileSync(
    catalog,
    `providers:\n  openai: { kind: openai, base_url: "${fakeUrl}" }\nmodels:\n  - id: openai/gpt-4o-mini\n    category: text\n    max_output_tokens: 16384\n    pricing: { input_per_mtok: "0.15", output_per_mtok: "0.60" }\n`,
  );
  const port = await freePort();
  const running = await startProcess(
    [...(env.PROFILE ? ['--cpu-prof', '--cpu-prof-dir', '.bench'] : []), ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', 'src/main.ts'],
    { PORT: String(port), HOST: '127.0.0.1', CATALOG_FILE: catalog, ADMIN_TOKEN, LOG_LEVEL: 'info', DATA_DIR: join(directory, 'data'), ...env },
    /(gateway listening)/,
  );
  running.url = `http://127.0.0.1:${port}`;
  const call = async (path: string, body: unknown) => {
    const response = await fetch(`${running.url}/admin/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string; key: string };
  };
  const organization = await call('/organizations', { name: 'bench' });
  await call(`/organizations/${organization.id}/credits`, { amount_usd: '1000000' });
  const key = await call(`/organizations/${organization.id}/keys`, { rpm: 100_000_000, tpm: 2_000_000_000 });
  return { running, key: key.key };
}

/** A server under load: where to send requests, and which processes and databases are its cost. */
interface Target {
  readonly name: string;
  readonly origin: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  /** The target's own processes: the first one's peak RSS is reported. */
  readonly pids: readonly number[];
  readonly databases: readonly string[];
  readonly usesRedis: boolean;
}

const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 500);
const STREAM_RATE = Number(process.env.BENCH_STREAM_RATE ?? 100);
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 5);
const ADMIN_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const STREAM_BODY = JSON.stringify({ ...(JSON.parse(BODY) as object), stream: true });

async function cpuReading(target: Target, redisPid: number | undefined) {
  const postgres = await postgresBackendPids(ADMIN_POSTGRES_URL, target.databases);
  return {
    own: cpuSecondsOf(target.pids),
    postgres: cpuSecondsOf(postgres),
    redis: cpuSecondsOf(target.usesRedis && redisPid !== undefined ? [redisPid] : []),
    machine: machineCpuSeconds(),
    generator: cpuSecondsOf([process.pid]),
  };
}

async function measure(target: Target, redisPid: number | undefined): Promise<TargetResult> {
  const options = { url: target.origin + target.path, method: 'POST' as const, headers: { 'content-type': 'application/json', ...target.headers }, body: BODY, connections: CONNECTIONS };
  await autocannon({ ...options, duration: 2 }); // warm-up: JIT, pools, caches
  const before = await cpuReading(target, redisPid);
  // the resident set under load, sampled (VmHWM would include start-up, e.g. PGlite's initdb)
  let loadedRss: number | undefined;
  const sampler = setInterval(() => {
    const rss = target.pids[0] === undefined ? undefined : memoryOf(target.pids[0], 'VmRSS');
    if (rss !== undefined) loadedRss = Math.max(loadedRss ?? 0, rss);
  }, 250);
  let result: autocannon.Result;
  try {
    result = await autocannon({ ...options, duration: SECONDS });
  } finally {
    clearInterval(sampler);
  }
  const after = await cpuReading(target, redisPid);
  const total = result.requests.total;
  const perRequest = (seconds: number | undefined) => (seconds === undefined || total === 0 ? undefined : (seconds * 1e6) / total);
  const generator = cpuSpent(before.generator, after.generator);
  const machine = before.machine === undefined || after.machine === undefined || generator === undefined ? undefined : after.machine - before.machine - generator;
  const paced = { origin: target.origin, path: target.path, headers: { 'content-type': 'application/json', ...target.headers }, seconds: PACED_SECONDS };
  const latency = await pacedLoad({ ...paced, body: BODY, ratePerSecond: PACED_RATE });
  const streaming = await pacedLoad({ ...paced, body: STREAM_BODY, ratePerSecond: STREAM_RATE, firstByte: true });
  return {
    name: target.name,
    requests: total,
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    cpu: {
      own: perRequest(cpuSpent(before.own, after.own)),
      postgres: perRequest(target.databases.length === 0 ? undefined : cpuSpent(before.postgres, after.postgres)),
      redis: perRequest(cpuSpent(before.redis, after.redis)),
      machine: perRequest(machine),
    },
    paced: { ratePerSecond: PACED_RATE, p50: latency.p50, p99: latency.p99, errors: latency.errors },
    streaming: { ratePerSecond: STREAM_RATE, p50: streaming.p50, p99: streaming.p99, errors: streaming.errors },
    peakRssBytes: target.pids[0] === undefined ? undefined : memoryOf(target.pids[0], 'VmHWM'),
    loadedRssBytes: loadedRss,
  };
}

const directory = mkdtempSync(join(tmpdir(), 'gw-bench-'));
mkdirSync('.bench', { recursive: true });
const started: Running[] = [];
const redis = await startBenchRedis();
const REDIS_URL = redis.url;
const profile: Record<string, string> = process.env.BENCH_PROFILE ? { PROFILE: '1' } : {};
try {
  await withBenchDatabase('gateway', (databaseUrl) => withBenchDatabase('worker', async (workerDatabaseUrl) => {
    const fake = await startProcess(['--import', 'tsx', 'ops/bench/serve.ts', 'fake-provider'], {}, /listening (\S+)/);
    started.push(fake);
    const proxy = await startProcess(['--import', 'tsx', 'ops/bench/serve.ts', 'bare-proxy', String(await freePort()), fake.url], {}, /listening (\S+)/);
    started.push(proxy);
    const targets: Target[] = [];
    const pidsOf = (...runnings: Running[]) => runnings.map((running) => running.child.pid!);
    const gatewayTarget = (name: string, gateway: { running: Running; key: string }, extra: Running[], databases: string[], usesRedis: boolean): Target => ({
      name,
      origin: gateway.running.url,
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${gateway.key}` },
      pids: pidsOf(gateway.running, ...extra),
      databases,
      usesRedis,
    });
    if (ONLY.has('direct')) targets.push({ name: 'direct (fake provider)', origin: fake.url, path: '/chat/completions', headers: {}, pids: pidsOf(fake), databases: [], usesRedis: false });
    const floorTarget: Target = { name: 'bare pass-through proxy', origin: proxy.url, path: '/chat/completions', headers: {}, pids: pidsOf(proxy), databases: [], usesRedis: false };
    targets.push(floorTarget);
    if (ONLY.has('production')) {
      const production = await startGateway({ DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: `${REDIS_PREFIX}production:`, ...profile }, fake.url, join(directory, 'production'));
      started.push(production.running);
      targets.push(gatewayTarget('gateway, production mode', production, [], [databaseUrl], true));
    }
    if (ONLY.has('worker')) {
      const split = await startGateway({ DATABASE_URL: workerDatabaseUrl, PROJECTIONS: 'off', REDIS_URL, REDIS_PREFIX: `${REDIS_PREFIX}worker:`, ...profile }, fake.url, join(directory, 'worker'));
      started.push(split.running);
      const worker = await startProcess([...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', '.bench'] : []), '--import', 'tsx', 'projections/cli.ts', 'run'], { DATABASE_URL: workerDatabaseUrl }, /(following the event log)/);
      started.push(worker);
      targets.push(gatewayTarget('gateway + projection worker, production mode', split, [worker], [workerDatabaseUrl], true));
    }
    if (ONLY.has('embedded')) {
      const embedded = await startGateway({ ...profile }, fake.url, join(directory, 'embedded'));
      started.push(embedded.running);
      targets.push(gatewayTarget('gateway, embedded mode', embedded, [], [], false));
    }

    const results: TargetResult[] = [];
    for (const target of targets) results.push(await measure(target, redis.pid));
    const floor = results[targets.indexOf(floorTarget)]!;
    printReport(results, floor, { connections: CONNECTIONS, seconds: SECONDS });
    const path = writeReport(results, floor, { connections: CONNECTIONS, seconds: SECONDS, pacedRate: PACED_RATE, streamRate: STREAM_RATE, pacedSeconds: PACED_SECONDS, nodeFlags: process.env.BENCH_NODE_FLAGS ?? '' });
    console.log(`\nfigures as JSON: ${path}`);
  }));
} finally {
  for (const running of started.reverse()) await stop(running).catch(() => {});
  rmSync(directory, { recursive: true, force: true });
  await removeRedisKeys(REDIS_PREFIX).catch((error: unknown) => console.error(`could not remove the Redis keys ${REDIS_PREFIX}*: ${String(error)}`));
  await redis.stop();
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
