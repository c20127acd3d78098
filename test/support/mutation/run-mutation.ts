import { spawn } from 'node:child_process';
import { randomBase62 } from '../../../src/ids/random-id.js';
import { removeTestRun } from '../global-setup.js';
import { ensureTestServices } from '../test-services.js';

/**
 * `npm run mutation`: StrykerJS over the money code (stryker.config.mjs), with the isolation `npm test`
 * has. Postgres and Redis are made to answer as for the tests; every Stryker test-runner process creates
 * its own database and key prefix under this run's name (mutation-hooks.ts), and all of them are removed
 * here afterwards, also when Stryker fails or is interrupted. Extra arguments go to `stryker run`.
 */
const services = await ensureTestServices((line) => console.log(`[test services] ${line}`));
const run = `mut${randomBase62(8).toLowerCase()}`;
const env = {
  ...process.env,
  TEST_MUTATION_RUN: run,
  TEST_POSTGRES_ADMIN_URL: services.postgresUrl,
  TEST_REDIS_URL: services.redisUrl,
};

const started = Date.now();
const child = spawn(process.execPath, ['node_modules/@stryker-mutator/core/bin/stryker.js', 'run', ...process.argv.slice(2)], { env, stdio: 'inherit' });
const forward = (signal: NodeJS.Signals) => child.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);
const code = await new Promise<number>((resolve) => child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0))));

try {
  await cleanUp();
  // a test runner that was starting when Stryker stopped may create its database a moment later
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  await cleanUp();
} finally {
  await services.stop();
}
console.log(`[mutation] finished in ${Math.round((Date.now() - started) / 60_000)} min; reports in reports/mutation/`);
process.exit(code);

function cleanUp(): Promise<void> {
  return removeTestRun(services, `gw_test_${run}`, `gwtest:${run}`);
}
