import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../free-port.js';
import { startProcess, stop, type Running } from './bench-processes.js';
import { runLoad, type LoadTally, type SoakKey } from './soak-load.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

/**
 * The reliability soak (issue 37, item 8), shared by the test tier (60 s) and the benchmark
 * (ops/bench/soak.ts, 5 minutes): three gateway instances with the account link, behind TCP proxies to
 * Postgres and Redis, 200 keys in 20 organizations, mixed endpoints from `concurrency` clients; meanwhile
 * one instance is killed and restarted, Postgres stalls for 5 s and Redis is cut for 5 s. Then: every
 * request answered (counted by status), the time each fault took to recover from, the orphans of the
 * killed instance closed, no organization below zero, and the audit's `verify` over the whole log.
 */
export interface SoakOptions {
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly redisPrefix: string;
  readonly seconds: number;
  readonly concurrency?: number;
  /** `tsx`: the TypeScript sources (the tests); `dist`: the compiled gateway (`npm run build` first). */
  readonly entry?: 'tsx' | 'dist';
  readonly log?: (line: string) => void;
}

export interface SoakReport {
  readonly seconds: number;
  readonly sent: number;
  readonly byStatus: Record<string, number>;
  /** Seconds from the end of each fault until a whole second passed with no failed answer. */
  readonly recoverySeconds: { instanceKilled: number | null; postgresStalled: number | null; redisCut: number | null };
  readonly lowestBalanceUsd: string;
  readonly reservedAfterUsd: string;
  readonly verifyExitCode: number;
  readonly verifyOutput: string;
}

const ADMIN_TOKEN = 'soak-admin-token-0123456789abcdef';
const LINK_SECRET = 'soak-account-link-secret';
const OPENAI_KEY = 'sk-soak-openai';
const ANTHROPIC_KEY = 'sk-soak-anthropic';

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? (() => undefined);
  const directory = mkdtempSync(join(tmpdir(), 'gw-soak-'));
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    const fakes = await startProcess(['--import', 'tsx', 'ops/bench/lib/serve.ts', 'fake-providers', OPENAI_KEY, ANTHROPIC_KEY], {}, /listening (\S+ \S+)\n/);
    cleanups.push(() => stop(fakes));
    const [openaiUrl, anthropicUrl] = fakes.url.split(' ') as [string, string];
    const catalog = join(directory, 'catalog.yaml');
    writeFileSync(catalog, catalogText(openaiUrl, anthropicUrl));
    const database = new URL(options.databaseUrl);
    const postgres = await startTcpProxy(database.hostname, Number(database.port || 5432));
    const redisTarget = new URL(options.redisUrl);
    let redis: TcpProxy = await startTcpProxy(redisTarget.hostname, Number(redisTarget.port || 6379));
    const redisPort = redis.port;
    cleanups.push(() => postgres.close(), () => redis.close());
    const proxied = new URL(options.databaseUrl);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(postgres.port);
    const env = {
      DATABASE_URL: proxied.toString(), REDIS_URL: `redis://127.0.0.1:${redisPort}`, REDIS_PREFIX: options.redisPrefix,
      ACCOUNT_LINK_PORT: '0', ACCOUNT_LINK_HOST: '127.0.0.1', ACCOUNT_LINK_SECRET: LINK_SECRET,
      CATALOG_FILE: catalog, ADMIN_TOKEN, LOG_LEVEL: 'warn', SOAK_OPENAI_KEY: OPENAI_KEY, SOAK_ANTHROPIC_KEY: ANTHROPIC_KEY, SHUTDOWN_GRACE_MS: '2000',
    };
    const instances: Running[] = [];
    const startInstance = async (index: number) => {
      const port = await freePort();
      const entry = options.entry === 'dist' ? ['dist/src/main.js'] : ['--import', 'tsx', 'src/main.ts'];
      const running = await startProcess(entry, { ...env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: join(directory, `data-${index}`), LOG_LEVEL: 'info' }, /(gateway listening)/);
      running.url = `http://127.0.0.1:${port}`;
      instances[index] = running;
      return running;
    };
    for (let index = 0; index < 3; index++) await startInstance(index); // one after the other: each migrates at start
    cleanups.push(() => Promise.all(instances.map((instance) => stop(instance))));
    const keys = await createCustomers(instances[0]!.url);
    // the other instances learn the keys from the log: the load starts once each accepts the last one
    for (const instance of instances) {
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(100)) {
        if ((await fetch(`${instance.url}/v1/models`, { headers: { authorization: `Bearer ${keys.at(-1)!.secret}` } })).ok) break;
      }
    }
    log(`3 instances, ${keys.length} keys in 20 organizations; load for ${options.seconds} s`);

    const tally: LoadTally = { byStatus: new Map(), seconds: [], sent: 0 };
    const down = new Set<number>();
    const urls = () => instances.filter((_, index) => !down.has(index)).map((instance) => instance.url);
    const load = runLoad({ urls: () => [...urls(), ...[...down].map((index) => instances[index]!.url)], keys, concurrency: options.concurrency ?? 16, seconds: options.seconds, tally });
    const at = (fraction: number) => sleepUntil(startedAt + fraction * options.seconds * 1_000);
    const startedAt = Date.now();
    const faultEnds: Record<keyof SoakReport['recoverySeconds'], number> = { instanceKilled: 0, postgresStalled: 0, redisCut: 0 };
    const faults = (async () => {
      await at(1 / 6);
      log('instance 2 killed (SIGKILL)');
      instances[1]!.child.kill('SIGKILL');
      down.add(1);
      await sleep(5_000);
      await startInstance(1);
      down.delete(1);
      faultEnds.instanceKilled = Date.now();
      log('instance 2 restarted');
      await at(2 / 5);
      log('Postgres stalled for 5 s');
      postgres.stall();
      await sleep(5_000);
      postgres.resume();
      faultEnds.postgresStalled = Date.now();
      await at(2 / 3);
      log('Redis cut for 5 s');
      await redis.close();
      await sleep(5_000);
      redis = await startTcpProxy(redisTarget.hostname, Number(redisTarget.port || 6379), redisPort);
      faultEnds.redisCut = Date.now();
    })();
    await Promise.all([load, faults]);
    const recovery = (end: number) => {
      for (let second = Math.ceil((end - startedAt) / 1_000); second < tally.seconds.length; second++) {
        const bucket = tally.seconds[second]!;
        if (bucket.answered > 0 && bucket.failed === 0) return Math.max(0, second - (end - startedAt) / 1_000);
      }
      return null;
    };
    const recoverySeconds = { instanceKilled: recovery(faultEnds.instanceKilled), postgresStalled: recovery(faultEnds.postgresStalled), redisCut: recovery(faultEnds.redisCut) };
    log('load done; waiting for every reservation to close (the killed instance\'s orphans included)');
    const money = await moneyAfter(options.databaseUrl);
    const verify = await runAudit(options.databaseUrl);
    return {
      seconds: options.seconds,
      sent: tally.sent,
      byStatus: Object.fromEntries([...tally.byStatus].sort()),
      recoverySeconds: { instanceKilled: round(recoverySeconds.instanceKilled), postgresStalled: round(recoverySeconds.postgresStalled), redisCut: round(recoverySeconds.redisCut) },
      ...money,
      verifyExitCode: verify.code,
      verifyOutput: verify.output,
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    rmSync(directory, { recursive: true, force: true });
  }
}

/** 20 organizations of 10 keys; each organization's credits run short of the load, so that 402s come too. */
async function createCustomers(url: string): Promise<SoakKey[]> {
  const call = async (path: string, body: unknown) => {
    const response = await fetch(`${url}/admin/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string; key?: string };
  };
  const keys: SoakKey[] = [];
  for (let org = 0; org < 20; org++) {
    const { id } = await call('/organizations', { name: `soak ${org}` });
    await call(`/organizations/${id}/credits`, { amount_usd: org % 4 === 0 ? '0.01' : '50.00' });
    for (let key = 0; key < 10; key++) keys.push({ orgId: id, secret: (await call(`/organizations/${id}/keys`, { name: `k${key}`, rpm: 100_000, tpm: 1_000_000_000 })).key! });
  }
  return keys;
}

/** Waits until nothing is reserved any more (orphans are closed within 30 s of a crash), then the lowest balance. */
async function moneyAfter(databaseUrl: string): Promise<Pick<SoakReport, 'lowestBalanceUsd' | 'reservedAfterUsd'>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    let row: { lowest: string; reserved: string } | undefined;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(500)) {
      row = (await client.query<{ lowest: string; reserved: string }>(`select (min(balance) / 1e9)::text as lowest, (sum(reserved) / 1e9)::text as reserved from balances`)).rows[0];
      if (row && Number(row.reserved) === 0) break;
    }
    return { lowestBalanceUsd: row?.lowest ?? '?', reservedAfterUsd: row?.reserved ?? '?' };
  } finally {
    await client.end();
  }
}

function runAudit(databaseUrl: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/audit/cli.ts', 'verify'], { env: { PATH: process.env.PATH!, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => resolve({ code: code ?? 1, output: output.slice(0, 4_000) }));
  });
}

function catalogText(openai: string, anthropic: string): string {
  return `providers:
  openai:    { kind: openai, base_url: "${openai}", api_key_env: SOAK_OPENAI_KEY, timeout_ms: 10000 }
  anthropic: { kind: anthropic, base_url: "${anthropic}", api_key_env: SOAK_ANTHROPIC_KEY, timeout_ms: 10000 }
models:
  - id: openai/gpt-4o-mini
    category: text
    max_output_tokens: 16384
    pricing: { input_per_mtok: "0.15", output_per_mtok: "0.60" }
  - id: anthropic/claude-sonnet-4-5
    category: text
    max_output_tokens: 64000
    pricing: { input_per_mtok: "3.00", output_per_mtok: "15.00" }
  - id: openai/text-embedding-3-small
    category: embeddings
    pricing: { input_per_mtok: "0.02" }
`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sleepUntil = (time: number) => sleep(Math.max(0, time - Date.now()));
const round = (value: number | null) => (value === null ? null : Math.round(value * 10) / 10);
