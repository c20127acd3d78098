import { Redis } from 'ioredis';
import pg from 'pg';
import { randomBase62 } from '../../src/ids/random-id.js';
import { ensureTestServices, type TestServices } from './test-services.js';

/**
 * Once per `npm test`: make sure Postgres and Redis answer, then give this run its own database
 * (`gw_test_<run>`) and Redis key prefix (`gwtest:<run>:`), published to the tests through
 * TEST_DATABASE_URL, TEST_REDIS_URL and TEST_REDIS_PREFIX. Teardown drops every database of the run
 * (scratch databases included) and deletes the run's Redis keys.
 */
let services: TestServices | undefined;

export async function mochaGlobalSetup(): Promise<void> {
  services = await ensureTestServices((line) => console.log(`[test services] ${line}`));
  const run = randomBase62(10).toLowerCase();
  process.env.TEST_RUN_ID = run;
  process.env.TEST_POSTGRES_ADMIN_URL = services.postgresUrl;
  process.env.TEST_REDIS_URL = services.redisUrl;
  process.env.TEST_REDIS_PREFIX = `gwtest:${run}:`;
  const database = `gw_test_${run}`;
  await adminQuery(services.postgresUrl, `create database ${database}`);
  process.env.TEST_DATABASE_URL = withDatabase(services.postgresUrl, database);
}

export async function mochaGlobalTeardown(): Promise<void> {
  if (!services) return;
  await removeTestRun(services, `gw_test_${process.env.TEST_RUN_ID!}`, process.env.TEST_REDIS_PREFIX!);
  await services.stop();
}

/** Drops every database whose name starts with `databasePrefix` and deletes every key under `redisPrefix`. */
export async function removeTestRun(services: TestServices, databasePrefix: string, redisPrefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: services.postgresUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(`select datname from pg_database where datname like $1`, [`${databasePrefix}%`]);
    for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`);
  } finally {
    await client.end();
  }
  const redis = new Redis(services.redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function adminQuery(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
