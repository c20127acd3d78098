import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminClient } from './admin-client.js';
import { catalogFor, FAKE_ANTHROPIC_KEY, FAKE_OPENAI_KEY, TEST_ADMIN_TOKEN, type FakeProviderUrls } from './test-gateway.js';
import { freePort } from '../../ops/free-port.js';
import type { EventLoopReport, HeapReport } from './event-loop-probe.js';

/**
 * A gateway as its own OS process (`src/main.ts` through tsx), in production mode: its own caches, pools,
 * event-store subscription and event loop, as one instance of several behind a load balancer. The test
 * catalog points at the fake providers; `env` adds or overrides variables (DATABASE_URL, REDIS_URL, …).
 */
export interface GatewayProcess {
  readonly url: string;
  /** Its DATA_DIR (a temporary directory, removed by `stop`): where the embedded mode keeps PGlite. */
  readonly dataDir: string;
  /** Event-loop reports of the child (only with `{ probeEventLoop: true }`), oldest first. */
  readonly eventLoop: EventLoopReport[];
  /** The child's heap used after a full collection, in bytes (only with `{ probeEventLoop: true }`). */
  heapUsedAfterGc(): Promise<number>;
  /** The child's JS heap and Buffer memory after a full collection: what it holds on to (only with `{ probeEventLoop: true }`). */
  retainedAfterGc(): Promise<number>;
  readonly admin: AdminClient;
  readonly child: ChildProcess;
  /** Everything it wrote on stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then the exit code (SIGKILL if it has not exited 20 s later). */
  stop(): Promise<number | null>;
}

export interface GatewayProcessOptions {
  /** Load test/support/event-loop-probe.ts into the child and collect its reports in `eventLoop`. */
  readonly probeEventLoop?: boolean;
}

export async function startGatewayProcess(env: Record<string, string>, providers: FakeProviderUrls, options: GatewayProcessOptions = {}): Promise<GatewayProcess> {
  const directory = mkdtempSync(join(tmpdir(), 'gw-process-'));
  const port = await freePort();
  const probe = options.probeEventLoop ? ['--expose-gc', '--import', './test/support/event-loop-probe.ts'] : [];
  const child = spawn(process.execPath, ['--import', 'tsx', ...probe, 'src/main.ts'], {
    env: {
      PATH: process.env.PATH!,
      PORT: String(port),
      HOST: '127.0.0.1',
      CATALOG_FILE: catalogFor(directory, providers),
      TEST_OPENAI_KEY: FAKE_OPENAI_KEY,
      TEST_ANTHROPIC_KEY: FAKE_ANTHROPIC_KEY,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      DATA_DIR: directory,
      LOG_LEVEL: 'warn',
      SHUTDOWN_GRACE_MS: '2000',
      ...env,
    },
    stdio: options.probeEventLoop ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  const eventLoop: EventLoopReport[] = [];
  const heapWaiters: Array<(report: HeapReport) => void> = [];
  child.on('message', (message: EventLoopReport | HeapReport) => {
    if (message?.type === 'event-loop') eventLoop.push(message);
    else if (message?.type === 'heap') heapWaiters.shift()?.(message);
  });
  const heapAfterGc = () =>
    new Promise<HeapReport>((resolve) => {
      heapWaiters.push(resolve);
      child.send({ type: 'heap' });
    });
  const heapUsedAfterGc = async () => (await heapAfterGc()).heapUsed;
  const retainedAfterGc = async () => {
    const report = await heapAfterGc();
    return report.heapUsed + report.arrayBuffers;
  };
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(directory, { recursive: true, force: true });
    return child.exitCode;
  };
  try {
    await waitUntilListening(url, () => child.exitCode !== null, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, dataDir: directory, eventLoop, heapUsedAfterGc, retainedAfterGc, admin: new AdminClient(url), child, output: () => output, stop };
}

async function waitUntilListening(url: string, exited: () => boolean, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited()) throw new Error(`the gateway process exited at start: ${output()}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the gateway process did not start within 60 s: ${output()}`);
}
