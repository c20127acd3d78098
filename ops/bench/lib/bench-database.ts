import pg from 'pg';
import { randomBase62 } from '../../../src/ids/random-id.js';

/**
 * A throw-away Postgres database for one benchmark run, on BENCH_POSTGRES_URL (default: the local
 * server). Dropped at the end, also when the benchmark fails.
 */
export async function withBenchDatabase<T>(label: string, run: (url: string) => Promise<T>): Promise<T> {
  const admin = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `gw_bench_${label}_${randomBase62(6).toLowerCase()}`;
  const query = (statement: string) => withClient(admin, (client) => client.query(statement));
  await query(`create database ${name}`);
  try {
    const url = new URL(admin);
    url.pathname = `/${name}`;
    return await run(url.toString());
  } finally {
    await query(`drop database if exists ${name} with (force)`);
  }
}

/** One connection to `url` for `run`, closed afterwards. */
export async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}
