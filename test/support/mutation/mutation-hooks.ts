import { adminQuery, withDatabase } from '../global-setup.js';

/**
 * Stryker's mocha runner loads `require` files for their root hooks only; it never calls a file's
 * `mochaGlobalSetup`. So each Stryker test-runner process gives itself, once, what the global setup gives
 * a `npm test` run: its own database and Redis key prefix, inside the mutation run's names
 * (`gw_test_<run>p<pid>`, `gwtest:<run>p<pid>:`), which run-mutation.ts removes after the run.
 */
let prepared: Promise<void> | undefined;

async function prepareThisProcess(): Promise<void> {
  const mutationRun = process.env.TEST_MUTATION_RUN;
  const admin = process.env.TEST_POSTGRES_ADMIN_URL;
  if (!mutationRun || !admin || !process.env.TEST_REDIS_URL) {
    throw new Error('run the mutation tests through `npm run mutation` (test/support/mutation/run-mutation.ts)');
  }
  const run = `${mutationRun}p${process.pid}`;
  const database = `gw_test_${run}`;
  await adminQuery(admin, `create database ${database}`);
  process.env.TEST_RUN_ID = run;
  process.env.TEST_DATABASE_URL = withDatabase(admin, database);
  process.env.TEST_REDIS_PREFIX = `gwtest:${run}:`;
}

export const mochaHooks = {
  async beforeAll(): Promise<void> {
    prepared ??= prepareThisProcess();
    await prepared;
  },
};
