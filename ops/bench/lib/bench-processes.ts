import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from '../../free-port.js';

/** The servers of one benchmark run, each in its own process (its own event loop, as in production). */
export interface Running {
  url: string;
  child: ChildProcess;
  /** The first log lines at warn or above after the start (at most KEPT_PROBLEMS): printed after the run. */
  readonly problems: string[];
}

const KEPT_PROBLEMS = 20;
/** pino's levels: 40 warn, 50 error, 60 fatal. */
const PROBLEM_LINE = /"level":(4|5|6)0\b/;

/** Starts `node <args>` and resolves once its output matches `ready` (the first group is its URL). */
export function startProcess(args: string[], env: Record<string, string>, ready: RegExp, cwd?: string): Promise<Running> {
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH!, ...env }, stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start: ${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        // from here on the output (a line per request) is not kept, but for the first warnings and errors
        const problems: string[] = [];
        const keepProblems = (chunk: Buffer) => {
          if (problems.length >= KEPT_PROBLEMS) return;
          for (const line of chunk.toString().split('\n')) {
            if (PROBLEM_LINE.test(line) && problems.length < KEPT_PROBLEMS) problems.push(line.slice(0, 2_000));
          }
        };
        child.stdout!.off('data', onData).on('data', keepProblems);
        child.stderr!.off('data', onData).on('data', keepProblems);
        resolve({ url: match[1]!, child, problems });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
}

export async function stop(running: Running): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return; // 'exit' would never come
  running.child.kill('SIGTERM');
  await new Promise((resolve) => running.child.once('exit', resolve));
}

export interface GatewaySettings {
  readonly adminToken: string;
  readonly fakeUrl: string;
  /** Where the gateway's catalog (and, in embedded mode, its data) goes. */
  readonly directory: string;
  /** `--cpu-prof` into .bench/. */
  readonly profile: boolean;
  /** The catalog's YAML, when not the bench models'. */
  readonly catalog?: string;
  /** Another checkout whose compiled gateway runs instead of this one's (BENCH_BEFORE: lib/before-worktree.ts). */
  readonly root?: string;
}

/** What `npm start` runs: the compiled gateway (`buildGateway` makes it). */
export const GATEWAY_ENTRY = 'dist/src/main.js';
/** What `npm run projections -- run` runs, compiled. */
export const PROJECTION_WORKER_ENTRY = 'dist/projections/cli.js';

/**
 * Compiles the gateway as `npm start` does, so that the benchmark measures the code operators run (not
 * the TypeScript loader of the development commands).
 */
export function buildGateway(): void {
  const built = spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error(`npm run build failed (exit ${built.status})`);
}

/** The model of the throughput loads: the fake provider answers it at once. */
export const BENCH_MODEL = 'openai/gpt-4o-mini';
/** How late the fake provider's first byte comes in the latency loads (BENCH_PROVIDER_FIRST_BYTE_MS, default 20): a fast real model. */
export const PROVIDER_FIRST_BYTE_MS = Number(process.env.BENCH_PROVIDER_FIRST_BYTE_MS ?? 20);
/** The model of the latency loads: its name asks the fake provider for that first-byte delay (`…-20ms`). */
export const DELAYED_BENCH_MODEL = PROVIDER_FIRST_BYTE_MS > 0 ? `${BENCH_MODEL}-${PROVIDER_FIRST_BYTE_MS}ms` : `${BENCH_MODEL}-0ms`;

/**
 * BENCH_DEPLOYMENTS=2 serves each bench model from two deployments of equal weight (two provider entries on
 * the same fake), to compare what choosing among deployments costs a request with one deployment (default 1).
 */
const DEPLOYMENTS = Number(process.env.BENCH_DEPLOYMENTS ?? 1);

function deploymentsOf(modelId: string): string {
  if (DEPLOYMENTS <= 1) return '';
  const upstream = modelId.replace(/^openai\//, '');
  const providers = Array.from({ length: DEPLOYMENTS }, (_, index) => (index % 2 === 0 ? 'openai' : 'openai-second'));
  return `    deployments:\n${providers.map((provider, index) => `      - { id: d${index}, provider: ${provider}, upstream: ${upstream}, weight: 1 }\n`).join('')}`;
}

/** Starts the compiled gateway with a catalog of the bench models on the fake provider (or `settings.catalog`); `env` picks the mode. */
export async function startGateway(env: Record<string, string>, settings: GatewaySettings): Promise<Running> {
  mkdirSync(settings.directory, { recursive: true });
  const catalog = join(settings.directory, 'catalog.yaml');
  writeFileSync(
    catalog,
    settings.catalog ??
    `providers:\n  openai: { kind: openai, base_url: "${settings.fakeUrl}" }\n  openai-second: { kind: openai, base_url: "${settings.fakeUrl}" }\nmodels:\n` +
      // the same model, and one the fake answers PROVIDER_FIRST_BYTE_MS late (the latency loads)
      [BENCH_MODEL, DELAYED_BENCH_MODEL]
        .map((id) => `  - id: ${id}\n    category: text\n    max_output_tokens: 16384\n    pricing: { input_per_mtok: "0.15", output_per_mtok: "0.60" }\n${deploymentsOf(id)}`)
        .join(''),
  );
  const port = await freePort();
  const running = await startProcess(
    [
      ...(settings.profile ? ['--cpu-prof', '--cpu-prof-dir', resolve('.bench')] : []),
      ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
      GATEWAY_ENTRY,
    ],
    { PORT: String(port), HOST: '127.0.0.1', CATALOG_FILE: catalog, ADMIN_TOKEN: settings.adminToken, LOG_LEVEL: 'info', DATA_DIR: join(settings.directory, 'data'), ...env },
    /(gateway listening)/,
    settings.root,
  );
  running.url = `http://127.0.0.1:${port}`;
  return running;
}

/** One organization with a million dollars and a key without practical rate limits: the benchmark's client. */
export async function createBenchKey(gatewayUrl: string, adminToken: string): Promise<{ organizationId: string; key: string }> {
  const call = async (path: string, body: unknown) => {
    const response = await fetch(`${gatewayUrl}/admin/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string; key: string };
  };
  const organization = await call('/organizations', { name: 'bench' });
  await call(`/organizations/${organization.id}/credits`, { amount_usd: '1000000' });
  const key = await call(`/organizations/${organization.id}/keys`, { rpm: 100_000_000, tpm: 2_000_000_000 });
  return { organizationId: organization.id, key: key.key };
}

/** A gateway's /metrics, one value per series (`name{labels}` as printed). */
export async function scrapeMetrics(gatewayUrl: string, adminToken: string): Promise<Map<string, number>> {
  const response = await fetch(`${gatewayUrl}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } });
  if (!response.ok) throw new Error(`/metrics: ${response.status}`);
  const series = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const space = line.lastIndexOf(' ');
    series.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return series;
}

/** Event-store appends of a gateway so far, from its /metrics: successful ones and those refused as conflicts. */
export async function appendCounts(gatewayUrl: string, adminToken: string): Promise<{ ok: number; conflict: number }> {
  const metrics = await scrapeMetrics(gatewayUrl, adminToken);
  const count = (outcome: string) => metrics.get(`gateway_event_append_seconds_count{outcome="${outcome}"}`) ?? 0;
  return { ok: count('ok'), conflict: count('conflict') };
}

/**
 * The balance equation after the load (credits − settled = balance, open reservations = reserved), checked by
 * the gateway's audit, which replays the log: the benchmark must not have bent a money rule.
 */
export async function verifyBalances(gatewayUrl: string, adminToken: string): Promise<{ organizations: number; mismatches: string[] }> {
  const response = await fetch(`${gatewayUrl}/admin/v1/audit/verify`, { headers: { authorization: `Bearer ${adminToken}` } });
  if (!response.ok) throw new Error(`/admin/v1/audit/verify: ${response.status} ${await response.text()}`);
  return (await response.json()) as { organizations: number; mismatches: string[] };
}
