import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';

/**
 * The connection pool under kysely, with the two rules a long-running gateway needs of it: a statement
 * never waits for good on a server that stopped answering, and a connection the server ended is never
 * handed to the next statement.
 */
export interface PoolOptions {
  url: string;
  poolSize: number;
  applicationName: string;
  /** How long to wait for a connection (a new one's handshake, or a free one while all are busy). */
  connectTimeoutMs: number;
  /** The statement timeout; unset, statements are unbounded (the migrations may wait for another instance's). */
  statementTimeoutMs?: number;
}

/** How long past its statement timeout a query waits for the server's own cancellation before giving up on the connection. */
const CLIENT_GIVE_UP_MARGIN_MS = 500;

/** Postgres's type id of int8, which both adapters parse as bigint. */
export const INT8_OID = 20;

export function createPostgresPool(options: PoolOptions): PostgresPool {
  const timeoutMs = options.statementTimeoutMs;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    application_name: options.applicationName,
    connectionTimeoutMillis: options.connectTimeoutMs,
    ...(timeoutMs !== undefined ? { statement_timeout: timeoutMs, Client: boundedClient(timeoutMs + CLIENT_GIVE_UP_MARGIN_MS) } : {}),
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // A dropped connection must not crash the process: the pool replaces idle ones, and a query running on
  // a checked-out one rejects (pg also emits 'error' on that client, which would be uncaught).
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return {
    connect: async () => releasingEndedConnections(await pool.connect()),
    end: () => pool.end(),
  };
}

/**
 * When the server ends a connection (pg_terminate_backend, a failover, a shutdown), the statement on it
 * fails with a FATAL error first, and the socket closes a moment later. kysely releases the client as
 * soon as the statement fails, and pg-pool keeps a released client unless it is given an error or has
 * already seen its socket close: in between, the next statement would get the ended connection and fail
 * too. So a client that saw a FATAL error is released with it, and the pool drops it.
 */
function releasingEndedConnections(client: pg.PoolClient): PostgresPoolClient {
  let ended: Error | undefined;
  const query = (...args: unknown[]): unknown => {
    const result = (client.query as (...args: unknown[]) => unknown)(...args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if (endsTheConnection(error)) ended = error as Error;
      });
    }
    return result;
  };
  return { query: query as PostgresPoolClient['query'], release: () => client.release(ended) };
}

function endsTheConnection(error: unknown): boolean {
  const severity = (error as { severity?: unknown } | null)?.severity;
  return severity === 'FATAL' || severity === 'PANIC';
}

/**
 * A pg client whose queries end within `giveUpMs` even when the server never answers. `statement_timeout`
 * bounds a slow statement on a server that answers (it cancels it and the connection stays usable); a
 * server that stopped answering altogether (a stalled network, a hung host) never sends that cancellation,
 * and pg would wait on the socket for good, holding the request and its pooled connection. So past the
 * bound the connection is destroyed: the query fails as a dropped connection (503 to the client), and the
 * pool, which never reuses a client that lost its connection, opens a fresh one for the next query.
 */
function boundedClient(giveUpMs: number): typeof pg.Client {
  class BoundedClient extends pg.Client {}
  const query = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
  (BoundedClient.prototype as unknown as { query: typeof query }).query = function (this: pg.Client, ...args: unknown[]) {
    const result = query.apply(this, args);
    if (result instanceof Promise) {
      const timer = setTimeout(giveUp, giveUpMs, this);
      result.then(
        () => clearTimeout(timer),
        () => clearTimeout(timer),
      );
    }
    return result;
  };
  return BoundedClient;
}

function giveUp(client: pg.Client): void {
  const { connection } = client as unknown as { connection?: { stream?: { destroy(error?: Error): void } } };
  connection?.stream?.destroy(new Error('Connection terminated: the database did not answer in time'));
}
