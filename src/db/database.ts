import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { migrations } from './migrations/index.js';
import { PgliteDialect } from './pglite-dialect.js';
import { compileWasmOptimized, pgliteStartParams, releaseInitdbMemory } from './pglite-memory.js';
import { createPostgresPool, INT8_OID } from './postgres-pool.js';
import { prepareDataDirApart } from './prepare-data-dir.js';

/**
 * The read-model database (and the Postgres event store's tables): kysely on `pg` with DATABASE_URL,
 * on PGlite in DATA_DIR otherwise. Each feature declares its own tables and widens the handle with
 * `db.kysely.withTables<ItsTables>()`, so no file has to list every table of the project.
 *
 * Both adapters parse int8 as bigint and numeric as string, so the same code runs unchanged on either.
 */
export interface Database {
  readonly kind: 'postgres' | 'pglite';
  readonly kysely: Kysely<object>;
  /** Subscribes to NOTIFY on a channel; resolves to an unsubscribe function. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * Tells every listener of the channel, now (not at the end of a transaction: call it after the commit).
   * On Postgres a NOTIFY, for listeners in other processes too. On PGlite only this process can open the
   * data directory, so the listeners registered here are called directly: a `pg_notify` statement cost
   * about half a millisecond of the WebAssembly's time, after every append.
   */
  notify(channel: string, payload: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface PostgresOptions {
  url: string;
  poolSize?: number;
  /** Shown in pg_stat_activity; helps an admin tell gateway instances apart. */
  applicationName?: string;
  /**
   * How long a statement, or getting a connection for it, may take (DATABASE_TIMEOUT_MS). Unset: no bound
   * on statements (the migrations, which may wait for another instance's), 5 s to connect.
   */
  timeoutMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const pool = createPostgresPool({
    url: options.url,
    poolSize: options.poolSize ?? 20,
    applicationName: options.applicationName ?? 'model-gateway',
    connectTimeoutMs: options.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(options.timeoutMs !== undefined ? { statementTimeoutMs: options.timeoutMs } : {}),
  });
  const kysely = new Kysely<object>({ dialect: new PostgresDialect({ pool }) });
  const listeners = new PostgresListener(options.url);
  return {
    kind: 'postgres',
    kysely,
    listen: (channel, onNotify) => listeners.listen(channel, onNotify),
    notify: async (channel, payload) => {
      await sql`select pg_notify(${channel}, ${payload})`.execute(kysely);
    },
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: async () => {
      await listeners.close();
      await kysely.destroy();
    },
  };
}

export interface PgliteOptions {
  /** A directory for a file-backed database; undefined = in memory (tests). */
  dataDir?: string;
  /** The child process that creates a new data directory for its parent (prepare-data-dir.ts), which holds its lock. */
  preparingForParent?: boolean;
}

export async function openPglite(options: PgliteOptions = {}): Promise<Database> {
  let lock: DataDirLock | undefined;
  let dataDir: string | undefined;
  if (options.dataDir) {
    if (!options.preparingForParent) lock = lockDataDir(options.dataDir);
    dataDir = `${options.dataDir}/pglite`;
    mkdirSync(dataDir, { recursive: true });
  }
  let database: PGlite;
  try {
    if (dataDir && !options.preparingForParent) await prepareDataDirApart(dataDir);
    compileWasmOptimized();
    database = await PGlite.create({
      ...(dataDir ? { dataDir } : {}),
      parsers: { [INT8_OID]: (value: string) => BigInt(value) },
      startParams: pgliteStartParams(),
    });
    await releaseInitdbMemory();
  } catch (error) {
    lock?.release();
    throw error;
  }
  const kysely = new Kysely<object>({ dialect: new PgliteDialect(database) });
  const localListeners = new Map<string, Set<(payload: string) => void>>();
  return {
    kind: 'pglite',
    kysely,
    // Registered twice: with PGlite for a NOTIFY sent in SQL (inside a transaction), and here for `notify`.
    listen: async (channel, onNotify) => {
      const unsubscribe = await database.listen(channel, onNotify);
      const handler = (payload: string) => onNotify(payload);
      const handlers = localListeners.get(channel) ?? new Set();
      handlers.add(handler);
      localListeners.set(channel, handlers);
      return async () => {
        handlers.delete(handler);
        await unsubscribe();
      };
    },
    notify: async (channel, payload) => {
      for (const handler of localListeners.get(channel) ?? []) handler(payload);
    },
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: async () => {
      await kysely.destroy();
      await database.close();
      lock?.release();
    },
  };
}

/** Brings the schema to the newest migration; every start runs it, and it is a no-op when up to date. */
export async function migrateToLatest(db: Database): Promise<void> {
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`);
  }
}

/**
 * One dedicated connection for LISTEN (a pooled connection would lose its LISTENs when returned).
 * It reconnects after a drop and re-issues every LISTEN; callers also poll, so a notification lost
 * during a reconnect only delays them.
 */
class PostgresListener {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private closed = false;

  constructor(private readonly url: string) {}

  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    let handlers = this.handlers.get(channel);
    const first = !handlers;
    if (!handlers) this.handlers.set(channel, (handlers = new Set()));
    handlers.add(onNotify);
    const client = await this.connect();
    if (first) await client.query(`listen ${quoteIdentifier(channel)}`);
    return async () => {
      handlers.delete(onNotify);
      if (handlers.size === 0) {
        this.handlers.delete(channel);
        await this.client?.query(`unlisten ${quoteIdentifier(channel)}`).catch(() => {});
      }
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private connect(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.url, application_name: 'model-gateway-listener' });
      client.on('notification', (message) => {
        for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? '');
      });
      client.on('error', () => this.dropped(client));
      client.on('end', () => this.dropped(client));
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`listen ${quoteIdentifier(channel)}`);
      this.client = client;
      return client;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private dropped(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.reconnectSoon();
  }

  private reconnectSoon(): void {
    if (this.closed || this.handlers.size === 0) return;
    setTimeout(() => {
      if (!this.closed) this.connect().catch(() => this.reconnectSoon());
    }, 500).unref();
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
