/**
 * `npm run bench`: the gateway's throughput and added latency, as ratios to a bare pass-through proxy,
 * all measured in ONE run against the same fake provider (DESIGN.md section 10). Not a test.
 *
 * Targets: non-streaming chat, 64 connections, billing on: the gateway in production mode (Postgres
 * event store and read models, Redis) ≥ 0.50 × the bare proxy's throughput; embedded mode (PGlite,
 * in-process limits) ≥ 0.20 ×. Each server runs in its own process; the load generator (autocannon)
 * runs in this one. Env: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (64), BENCH_POSTGRES_URL,
 * BENCH_REDIS_URL, BENCH_PROFILE=1 writes CPU profiles of every gateway and of the projection worker to .bench/,
 * BENCH_ONLY=proxy,production (any of direct, proxy, production, worker, embedded) loads only those
 * targets (the bare proxy is always measured: it is the floor of the ratios). `worker` is production mode
 * with PROJECTIONS=off and the projection worker in its own process (`npm run projections -- run`).
 * BENCH_NODE_FLAGS adds Node flags to the gateways (e.g. `--max-semi-space-size=64`, which cut the
 * production gateway's CPU per request by about a tenth in one run: less time in the young-generation GC).
 */
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBase62 } from '../../src/ids/random-id.js';
import { freePort } from '../../test/support/test-services.js';
import { withBenchDatabase } from './bench-database.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
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

interface Result {
  name: string;
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time of the target's own process per request, in µs (Linux; undefined elsewhere). */
  processCpuUs: number | undefined;
  /** CPU time of the whole machine per request, the load generator's excluded, in µs. */
  machineCpuUs: number | undefined;
}

/** CPU seconds used by a process so far (utime + stime from /proc, in ticks of 1/100 s), or undefined off Linux. */
function processCpuSeconds(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid ?? 'self'}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds the machine has spent busy so far (every core), or undefined off Linux. */
function machineCpuSeconds(): number | undefined {
  try {
    const [, user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
    return (user! + nice! + system! + irq! + softirq! + steal!) / 100;
  } catch {
    return undefined;
  }
}

async function load(name: string, url: string, headers: Record<string, string>, target: ChildProcess | undefined): Promise<Result> {
  const options = { url, method: 'POST' as const, headers: { 'content-type': 'application/json', ...headers }, body: BODY, connections: CONNECTIONS };
  await autocannon({ ...options, duration: 2 }); // warm-up: JIT, pools, caches
  const before = { target: processCpuSeconds(target?.pid), machine: machineCpuSeconds(), generator: processCpuSeconds(undefined) };
  const result = await autocannon({ ...options, duration: SECONDS });
  const after = { target: processCpuSeconds(target?.pid), machine: machineCpuSeconds(), generator: processCpuSeconds(undefined) };
  const perRequestUs = (seconds: number | undefined) => (seconds === undefined || result.requests.total === 0 ? undefined : (seconds * 1e6) / result.requests.total);
  const spent = (key: keyof typeof before) => (before[key] === undefined || after[key] === undefined ? undefined : after[key]! - before[key]!);
  const generator = spent('generator');
  const machine = spent('machine');
  return {
    processCpuUs: perRequestUs(spent('target')),
    machineCpuUs: perRequestUs(machine === undefined || generator === undefined ? undefined : machine - generator),
    name,
    requests: result.requests.total,
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

const directory = mkdtempSync(join(tmpdir(), 'gw-bench-'));
mkdirSync('.bench', { recursive: true });
const started: Running[] = [];
try {
  await withBenchDatabase('gateway', (databaseUrl) => withBenchDatabase('worker', async (workerDatabaseUrl) => {
    const fake = await startProcess(['--import', 'tsx', 'ops/bench/serve.ts', 'fake-provider'], {}, /listening (\S+)/);
    started.push(fake);
    const proxy = await startProcess(['--import', 'tsx', 'ops/bench/serve.ts', 'bare-proxy', String(await freePort()), fake.url], {}, /listening (\S+)/);
    started.push(proxy);
    const production = ONLY.has('production')
      ? await startGateway(
          { DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: `${REDIS_PREFIX}production:`, ...(process.env.BENCH_PROFILE ? { PROFILE: '1' } : {}) },
          fake.url,
          join(directory, 'production'),
        )
      : undefined;
    if (production) started.push(production.running);
    const split = ONLY.has('worker')
      ? await startGateway(
          { DATABASE_URL: workerDatabaseUrl, PROJECTIONS: 'off', REDIS_URL, REDIS_PREFIX: `${REDIS_PREFIX}worker:`, ...(process.env.BENCH_PROFILE ? { PROFILE: '1' } : {}) },
          fake.url,
          join(directory, 'worker'),
        )
      : undefined;
    if (split) {
      started.push(split.running);
      started.push(await startProcess([...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', '.bench'] : []), '--import', 'tsx', 'projections/cli.ts', 'run'], { DATABASE_URL: workerDatabaseUrl }, /(following the event log)/));
    }
    const embedded = ONLY.has('embedded') ? await startGateway({ ...(process.env.BENCH_PROFILE ? { PROFILE: '1' } : {}) }, fake.url, join(directory, 'embedded')) : undefined;
    if (embedded) started.push(embedded.running);

    const results: Result[] = [];
    if (ONLY.has('direct')) results.push(await load('direct (fake provider)', `${fake.url}/chat/completions`, {}, fake.child));
    const floor = await load('bare pass-through proxy', `${proxy.url}/chat/completions`, {}, proxy.child);
    results.push(floor);
    if (production) {
      results.push(await load('gateway, production mode', `${production.running.url}/v1/chat/completions`, { authorization: `Bearer ${production.key}` }, production.running.child));
    }
    if (split) {
      results.push(await load('gateway, production mode, projection worker', `${split.running.url}/v1/chat/completions`, { authorization: `Bearer ${split.key}` }, split.running.child));
    }
    if (embedded) {
      results.push(await load('gateway, embedded mode', `${embedded.running.url}/v1/chat/completions`, { authorization: `Bearer ${embedded.key}` }, embedded.running.child));
    }
    console.log(`\nnon-streaming chat completions, ${CONNECTIONS} connections, ${SECONDS} s each, billing on (one run, same fake provider)\n`);
    console.log('| target | req/s | × bare proxy | p50 ms | p99 ms | p50 added vs proxy | errors | CPU µs/req, own process | CPU µs/req, whole machine |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    const micros = (value: number | undefined) => (value === undefined ? 'n/a' : String(Math.round(value)));
    for (const result of results) {
      console.log(
        `| ${result.name} | ${Math.round(result.perSecond)} | ${(result.perSecond / floor.perSecond).toFixed(2)} | ${result.p50} | ${result.p99} | ${result === floor ? '-' : `${(result.p50 - floor.p50).toFixed(1)} ms`} | ${result.errors} | ${micros(result.processCpuUs)} | ${micros(result.machineCpuUs)} |`,
      );
    }
    console.log('\nCPU per request: the target process alone, and the whole machine (every process and the kernel, the load generator excepted).');
    console.log('\ntargets: production ≥ 0.50 × bare proxy, embedded ≥ 0.20 ×');
  }));
} finally {
  for (const running of started.reverse()) await stop(running).catch(() => {});
  rmSync(directory, { recursive: true, force: true });
  await removeRedisKeys(REDIS_PREFIX).catch((error: unknown) => console.error(`could not remove the Redis keys ${REDIS_PREFIX}*: ${String(error)}`));
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
