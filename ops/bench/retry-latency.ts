/**
 * What a retry adds to a request's latency beyond its backoff (not a test): `npx tsx ops/bench/retry-latency.ts`
 *
 * The compiled gateway (production mode, a scratch database, the local Redis) serves one model from the fake
 * OpenAI provider in this process, with retries allowed and a backoff of `RETRY_BACKOFF_MS` (default 0: what
 * is left is the retry's own cost, the failed attempt's round trip included). Requests are sent one at a time,
 * alternating: one the provider answers at once, one it first refuses with a 429 and then answers. Prints the
 * p50 and p90 of each and the difference. `RETRY_REQUESTS` (default 200 of each).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBase62 } from '../../src/ids/random-id.js';
import { startFakeOpenAi } from '../fake-providers/fake-openai-provider.js';
import { withBenchDatabase } from './lib/bench-database.js';
import { buildGateway, createBenchKey, startGateway, stop } from './lib/bench-processes.js';

const REQUESTS = Number(process.env.RETRY_REQUESTS ?? 200);
const BACKOFF_MS = Number(process.env.RETRY_BACKOFF_MS ?? 0);
const BODY = JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 16 });

buildGateway();
const fake = await startFakeOpenAi({ record: false });
const directory = mkdtempSync(join(tmpdir(), 'gw-retry-'));
const adminToken = `bench-admin-${randomBase62(20)}`;
const catalog =
  `providers:\n  openai: { kind: openai, base_url: "${fake.url}" }\nmodels:\n  - id: openai/gpt-4o-mini\n    category: text\n    max_output_tokens: 16384\n` +
  `    pricing: { input_per_mtok: "0.15", output_per_mtok: "0.60" }\n` +
  `    retry: { max_attempts: 2, initial_backoff_ms: ${BACKOFF_MS}, max_backoff_ms: ${BACKOFF_MS}, cooldown_after_failures: 1000 }\n`;
try {
  await withBenchDatabase('retry_latency', async (databaseUrl) => {
    const gateway = await startGateway({ DATABASE_URL: databaseUrl, REDIS_PREFIX: `gwbench:${randomBase62(6)}:` }, { adminToken, fakeUrl: fake.url, directory, profile: false, catalog });
    try {
      const { key } = await createBenchKey(gateway.url!, adminToken);
      const send = async () => {
        const started = performance.now();
        const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: BODY });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`answered ${response.status}`);
        return performance.now() - started;
      };
      for (let i = 0; i < 50; i++) await send(); // warm-up
      const plain: number[] = [];
      const retried: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        plain.push(await send());
        fake.enqueue({ error: { status: 429 } });
        retried.push(await send());
      }
      const at = (values: number[], share: number) => [...values].sort((a, b) => a - b)[Math.floor(values.length * share)]!;
      const line = (name: string, values: number[]) => `${name}: p50 ${at(values, 0.5).toFixed(2)} ms, p90 ${at(values, 0.9).toFixed(2)} ms`;
      console.log(`${REQUESTS} of each, one at a time; backoff ${BACKOFF_MS} ms`);
      console.log(line('answered at once', plain));
      console.log(line('a 429 first, then answered', retried));
      console.log(`added by the retry at p50: ${(at(retried, 0.5) - at(plain, 0.5)).toFixed(2)} ms (the backoff: ${BACKOFF_MS} ms)`);
    } finally {
      await stop(gateway);
    }
  });
} finally {
  await fake.close();
  rmSync(directory, { recursive: true, force: true });
}
