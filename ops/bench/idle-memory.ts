/**
 * The resident memory of an idle embedded gateway (not a test): `npx tsx ops/bench/idle-memory.ts`
 *
 * Starts the compiled gateway (as `npm start` runs it) in embedded mode on a fresh data directory, creates
 * the benchmark's organization and key, serves a few requests (so that the tokenizer, the ledger and the
 * projections have run once), then waits (`IDLE_SECONDS`, default 30) and reads VmRSS from the OS. Then
 * the same again after a restart on the same data directory: the common case of a gateway that has been
 * running for a while. Prints both, and each process's peak (VmHWM, start-up included).
 * `BENCH_NODE_FLAGS` adds Node flags, as in the benchmark.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBase62 } from '../../src/ids/random-id.js';
import { buildGateway, createBenchKey, startGateway, startProcess, stop, type Running } from './bench-processes.js';
import { memoryOf } from './os-usage.js';

const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 30);
const REQUESTS = 20;
const ADMIN_TOKEN = `bench-admin-${randomBase62(20)}`;
const BODY = JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello in one short sentence.' }], max_tokens: 64 });
const MB = 1024 * 1024;

buildGateway();
const fake = await startProcess(['--import', 'tsx', 'ops/bench/serve.ts', 'fake-provider'], {}, /listening (\S+)/);
const directory = mkdtempSync(join(tmpdir(), 'gw-idle-'));
try {
  let key: string | undefined;
  for (const start of ['first start of the data directory', 'restart on the same data directory']) {
    const gateway = await startGateway({}, { adminToken: ADMIN_TOKEN, fakeUrl: fake.url, directory, profile: false });
    try {
      key ??= (await createBenchKey(gateway.url, ADMIN_TOKEN)).key;
      await serveRequests(gateway, key);
      await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
      const pid = gateway.child.pid!;
      const rss = memoryOf(pid, 'VmRSS')! / MB;
      const peak = memoryOf(pid, 'VmHWM')! / MB;
      console.log(`${start}: idle RSS ${rss.toFixed(0)} MB after ${IDLE_SECONDS} s (peak ${peak.toFixed(0)} MB)`);
    } finally {
      await stop(gateway);
    }
  }
} finally {
  await stop(fake);
  rmSync(directory, { recursive: true, force: true });
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
