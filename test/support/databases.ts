import { randomBase62 } from '../../src/ids/random-id.js';
import { migrateToLatest, openPglite, openPostgres, type Database } from '../../src/db/database.js';
import { adminQuery, withDatabase } from './global-setup.js';
import { startTcpProxy } from '../../ops/bench/lib/tcp-proxy.js';

/** The run's shared database (created by the global setup). */
export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests through `npm test` (mocha with the global setup)');
  return url;
}

export function testRedisUrl(): string {
  return process.env.TEST_REDIS_URL!;
}

/** A Redis key prefix for one test, inside the run's prefix (removed by the global teardown). */
export function testRedisPrefix(label: string): string {
  return `${process.env.TEST_REDIS_PREFIX}${label}:${randomBase62(6)}:`;
}

/**
 * A fresh, empty Postgres database for tests that need a clean slate (event store contract, rebuilds).
 * Dropped by `drop()`, and in any case by the global teardown.
 */
export async function createScratchDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `gw_test_${process.env.TEST_RUN_ID}_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBase62(6).toLowerCase()}`;
  const admin = process.env.TEST_POSTGRES_ADMIN_URL!;
  await adminQuery(admin, `create database ${name}`);
  return { url: withDatabase(admin, name), drop: () => adminQuery(admin, `drop database if exists ${name} with (force)`) };
}

/** A migrated database of each kind the project supports, for suites that loop over both. */
export const DATABASE_KINDS = ['postgres', 'pglite'] as const;
export type DatabaseKind = (typeof DATABASE_KINDS)[number];

export async function openMigratedDatabase(kind: DatabaseKind, label: string): Promise<{ database: Database; dispose: () => Promise<void> }> {
  if (kind === 'pglite') {
    const database = await openPglite();
    await migrateToLatest(database);
    return { database, dispose: () => database.close() };
  }
  const scratch = await createScratchDatabase(label);
  const database = await openPostgres({ url: scratch.url, poolSize: 20 });
  await migrateToLatest(database);
  return {
    database,
    dispose: async () => {
      await database.close();
      await scratch.drop();
    },
  };
}

/** A migrated scratch database, reached directly and through a TCP proxy the test can cut and restore. */
export interface ProxiedDatabase {
  /** Straight to Postgres: what a reader that sees no outage sees. */
  readonly direct: Database;
  /** Through the proxy: the database of the code under test. */
  readonly proxied: Database;
  /** Closes the proxy and every connection through it: Postgres is away for `proxied` only. */
  cut(): Promise<void>;
  /** Listens again on the same port, so the pool of `proxied` reconnects. */
  restore(): Promise<void>;
  dispose(): Promise<void>;
}

export async function openProxiedDatabase(label: string, poolSize = 4): Promise<ProxiedDatabase> {
  const scratch = await createScratchDatabase(label);
  const target = new URL(scratch.url);
  const direct = await openPostgres({ url: scratch.url, poolSize: 2 });
  await migrateToLatest(direct);
  const startProxy = (port?: number) => startTcpProxy(target.hostname, Number(target.port || 5432), port);
  let proxy = await startProxy();
  const port = proxy.port;
  const through = new URL(scratch.url);
  through.hostname = '127.0.0.1';
  through.port = String(port);
  const proxied = await openPostgres({ url: through.toString(), poolSize });
  return {
    direct,
    proxied,
    cut: () => proxy.close(),
    restore: async () => {
      proxy = await startProxy(port);
    },
    dispose: async () => {
      await proxied.close();
      await direct.close();
      await proxy.close();
      await scratch.drop();
    },
  };
}
