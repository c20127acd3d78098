/**
 * The reliability soak, five minutes long (issue 37, item 8; the test tier runs the same scenario for 60 s,
 * test/reliability/load-with-faults.test.ts): three gateway instances with the account link, 200 keys in 20
 * organizations, mixed endpoints, one instance killed and restarted, Postgres stalled for 5 s and Redis cut
 * for 5 s (ops/bench/lib/soak.ts). Prints the report as JSON (answers by status, the seconds each fault
 * took to recover from, the lowest balance, what stayed reserved, the audit's verdict) and exits 1 when
 * money was lost or overspent, a request hung or a fault never recovered.
 *
 *   npx tsx ops/bench/soak.ts                 SOAK_SECONDS (default 300), SOAK_CONCURRENCY (default 16)
 *
 * A scratch database on BENCH_POSTGRES_URL (default the local server), dropped at the end; Redis at
 * BENCH_REDIS_URL (default redis://127.0.0.1:6379), under a prefix of its own, removed at the end.
 */
import { Redis } from 'ioredis';
import { randomBase62 } from '../../src/ids/random-id.js';
import { withBenchDatabase } from './lib/bench-database.js';
import { runSoak } from './lib/soak.js';

const seconds = Number(process.env.SOAK_SECONDS ?? 300);
const concurrency = Number(process.env.SOAK_CONCURRENCY ?? 16);
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisPrefix = `gw-soak-${randomBase62(6)}:`;

const report = await withBenchDatabase('soak', (databaseUrl) =>
  runSoak({ databaseUrl, redisUrl, redisPrefix, seconds, concurrency, log: (line) => process.stderr.write(`${new Date().toISOString()} ${line}\n`) }),
);
const redis = new Redis(redisUrl);
for (let cursor = '0'; ; ) {
  const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 1_000);
  if (keys.length > 0) await redis.del(...keys);
  if ((cursor = next) === '0') break;
}
await redis.quit();
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
const failed =
  report.verifyExitCode !== 0 || Number(report.lowestBalanceUsd) < 0 || Number(report.reservedAfterUsd) !== 0 || (report.byStatus.timeout ?? 0) > 0 ||
  Object.values(report.recoverySeconds).some((value) => value === null);
process.exit(failed ? 1 : 0);
