import { Redis } from 'ioredis';

/**
 * A Redis connection for request-path work (rate limits, readiness). The offline queue is off and every
 * command has a time limit, so that a Redis outage fails a request within a second instead of parking it
 * (a closed connection fails at once; a connection that stopped answering, after `COMMAND_TIMEOUT_MS`).
 * ioredis keeps reconnecting in the background, at most `RECONNECT_MAX_DELAY_MS` apart, so service
 * resumes within about two seconds of Redis coming back.
 * Commands issued in the same turn of the event loop go out in one write (auto-pipelining): under load
 * the rate-limit calls of many requests share a syscall instead of paying one each.
 * BullMQ makes its own connections (it needs `maxRetriesPerRequest: null`).
 */
export const COMMAND_TIMEOUT_MS = 1_000;
export const RECONNECT_MAX_DELAY_MS = 2_000;

export function createRedisClient(url: string): Redis {
  const client = new Redis(url, {
    lazyConnect: true,
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, RECONNECT_MAX_DELAY_MS),
  });
  client.on('error', () => {}); // reported through readiness and per-request errors, not as a crash
  return client;
}

/**
 * Connects, waiting up to `timeoutMs` for the first connection so that the first request finds Redis
 * ready. A Redis that is down at start is not fatal: the client keeps retrying and /readyz says so.
 */
export async function connectRedis(client: Redis, timeoutMs = 3_000): Promise<boolean> {
  const connected = client.connect().then(
    () => true,
    () => false,
  );
  const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
  return Promise.race([connected, timeout]);
}

/** Whether commands can be sent now; anything else (connecting, reconnecting, closed) fails them at once. */
export function redisIsReady(client: Redis): boolean {
  return client.status === 'ready';
}
