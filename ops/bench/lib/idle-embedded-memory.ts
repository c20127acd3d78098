/**
 * The resident memory of an idle embedded gateway: part of `npm run bench` (with the embedded target), and
 * alone with `npx tsx ops/bench/idle-memory.ts`, which runs only this.
 *
 * Starts the compiled gateway (as `npm start` runs it) in embedded mode on a fresh data directory, creates
 * the benchmark's organization and key, serves a few requests (so that the token counter, the ledger and
 * the projections have run once), then waits (`IDLE_SECONDS`, default 30) and reads VmRSS from the OS. Then
 * the same again after a restart on the same data directory: the common case of a gateway that has been
 * running for a while. Each with the process's peak (VmHWM, start-up included).
 * `BENCH_NODE_FLAGS` adds Node flags, as in the benchmark.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBase62 } from '../../../src/ids/random-id.js';
import { createBenchKey, startGateway, stop, type Running } from './bench-processes.js';
import { memoryOf } from './os-usage.js';

export interface IdleMemory {
  readonly idleSeconds: number;
  /** Megabytes: VmRSS after the idle time, and the process's peak. */
  readonly firstStart: { readonly rssMb: number; readonly peakMb: number };
  readonly restart: { readonly rssMb: number; readonly peakMb: number };
}

export const IDLE_EMBEDDED_TARGET_MB = 200;

const REQUESTS = 20;
const BODY = JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello in one short sentence.' }], max_tokens: 64 });
const MB = 1024 * 1024;

/** Two starts of an embedded gateway on one data directory (a fresh one, removed afterwards). */
export async function measureIdleEmbedded(fakeUrl: string, idleSeconds = Number(process.env.IDLE_SECONDS ?? 30)): Promise<IdleMemory> {
  const adminToken = `bench-admin-${randomBase62(20)}`;
  const directory = mkdtempSync(join(tmpdir(), 'gw-idle-'));
  try {
    let key: string | undefined;
    const measureStart = async () => {
      const gateway = await startGateway({}, { adminToken, fakeUrl, directory, profile: false });
      try {
        key ??= (await createBenchKey(gateway.url, adminToken)).key;
        await serveRequests(gateway, key);
        await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
        const pid = gateway.child.pid!;
        return { rssMb: Math.round(memoryOf(pid, 'VmRSS')! / MB), peakMb: Math.round(memoryOf(pid, 'VmHWM')! / MB) };
      } finally {
        await stop(gateway);
      }
    };
    const firstStart = await measureStart();
    const restart = await measureStart();
    return { idleSeconds, firstStart, restart };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

export function describeIdleMemory(idle: IdleMemory): string {
  return (
    `idle embedded gateway (${idle.idleSeconds} s after ${REQUESTS} requests; target under ${IDLE_EMBEDDED_TARGET_MB} MB): ` +
    `${idle.restart.rssMb} MB after a restart (peak ${idle.restart.peakMb} MB), ` +
    `${idle.firstStart.rssMb} MB after the first start of its data directory (peak ${idle.firstStart.peakMb} MB)`
  );
}

async function serveRequests(gateway: Running, key: string): Promise<void> {
  for (let request = 0; request < REQUESTS; request++) {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: BODY,
    });
    if (!response.ok) throw new Error(`chat completion: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  }
}
