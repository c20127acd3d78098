/**
 * Whether an error means a store the gateway depends on (Postgres, Redis, EventStoreDB) could not be
 * reached or dropped the connection, as opposed to a fault of ours. Such an error is answered
 * `503 service_unavailable` with `Retry-After`, never `500`: the request can succeed once the store is back.
 * Recognised by the shapes the clients use (Node socket codes, Postgres SQLSTATE class 08 and shutdown
 * codes, pg's and ioredis' own messages, EventStoreDB's error types), through the `cause` chain.
 */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
// https://www.postgresql.org/docs/current/errcodes-appendix.html: class 08, 57P01–57P03 (server shutting down or
// starting), and 57014 (the statement outlived DATABASE_TIMEOUT_MS: a stalled or overloaded database)
const POSTGRES_CODES = /^(08...|57P0[123]|57014)$/;
const MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Connection is closed|Stream isn't writeable|Command timed out/i;
const ESDB_TYPES = new Set(['unavailable', 'deadline-exceeded']);

export function isConnectionFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const { code, type } = current as { code?: unknown; type?: unknown };
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || POSTGRES_CODES.test(code))) return true;
    if (typeof type === 'string' && ESDB_TYPES.has(type)) return true;
    if (MESSAGES.test(current.message)) return true;
  }
  return false;
}

/** Seconds a client is asked to wait when a store is unreachable: about the time a reconnect takes. */
export const STORE_RETRY_AFTER_SECONDS = 2;
