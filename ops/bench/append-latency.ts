/**
 * Where the latency at a fixed rate goes (not a test): `npx tsx ops/bench/append-latency.ts`
 *
 * One production gateway (compiled, as the benchmark runs it) on a scratch database and the benchmark's
 * Redis, warmed up, then paced load (500 requests/s for 5 s; `BENCH_PACED_RATE`, `BENCH_PACED_SECONDS`).
 * Prints the end-to-end p50 and p99 and, from the gateway's own metrics over the paced load, the event-store
 * appends (count, events an append, mean time, share under 1 and 2.5 ms: the reservation's append is on the
 * request's path), the gateway's own time a request and the provider's. Compare the appends' time with
 * the disk's flush: `/usr/lib/postgresql/15/bin/pg_test_fsync -s 1`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBase62 } from '../../src/ids/random-id.js';
import { withBenchDatabase } from './lib/bench-database.js';
import { buildGateway, createBenchKey, scrapeMetrics, startGateway, startProcess, stop } from './lib/bench-processes.js';
import { startBenchRedis } from './lib/bench-redis.js';
import { pacedLoad } from './lib/paced-load.js';

const RATE = Number(process.env.BENCH_PACED_RATE ?? 500);
const SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 5);
const ADMIN_TOKEN = `bench-admin-${randomBase62(20)}`;
const BODY = JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello in one short sentence.' }], max_tokens: 64 });

buildGateway();
const redis = await startBenchRedis();
try {
  await withBenchDatabase('latency', async (databaseUrl) => {
    const fake = await startProcess(['--import', 'tsx', 'ops/bench/lib/serve.ts', 'fake-provider'], {}, /listening (\S+)/);
    const directory = mkdtempSync(join(tmpdir(), 'gw-latency-'));
    const gateway = await startGateway(
      { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, REDIS_PREFIX: `gwbench:${randomBase62(6)}:` },
      { adminToken: ADMIN_TOKEN, fakeUrl: fake.url, directory, profile: false },
    );
    try {
      const { key } = await createBenchKey(gateway.url, ADMIN_TOKEN);
      const load = { entries: [{ origin: gateway.url, headers: { authorization: `Bearer ${key}` } }], path: '/v1/chat/completions', body: BODY, ratePerSecond: RATE };
      await pacedLoad({ ...load, seconds: 8 });
      const before = await scrapeMetrics(gateway.url, ADMIN_TOKEN);
      const result = await pacedLoad({ ...load, seconds: SECONDS });
      const after = await scrapeMetrics(gateway.url, ADMIN_TOKEN);
      const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
      const appends = delta('gateway_event_append_seconds_count{outcome="ok"}');
      const share = (le: string) => `${((100 * delta(`gateway_event_append_seconds_bucket{le="${le}",outcome="ok"}`)) / appends).toFixed(0)} %`;
      const perRequest = (name: string) => `${((1000 * delta(name)) / result.requests).toFixed(2)} ms`;
      console.log(`${result.requests} requests at ${RATE}/s, ${result.errors} failed; end to end p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms`);
      console.log(
        `appends: ${appends}, ${(delta('gateway_event_append_batch_size_sum') / appends).toFixed(2)} events an append, ` +
          `${((1000 * delta('gateway_event_append_seconds_sum{outcome="ok"}')) / appends).toFixed(2)} ms on average, ${share('0.001')} under 1 ms, ${share('0.0025')} under 2.5 ms`,
      );
      console.log(
        `a request: the gateway's own time ${perRequest('gateway_overhead_seconds_sum{endpoint="chat"}')} (until its reservation is closed, the settle included), ` +
          `the provider's ${perRequest('gateway_provider_latency_seconds_sum{endpoint="chat"}')}`,
      );
    } finally {
      await stop(gateway);
      await stop(fake);
    }
  });
} finally {
  await redis.stop();
}
