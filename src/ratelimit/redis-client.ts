import { Redis } from 'ioredis';

/**
 * A Redis connection for request-path work (rate limits, readiness). The offline queue is off so that a
 * Redis outage fails fast instead of parking requests; ioredis keeps reconnecting in the background.
 * Commands issued in the same turn of the event loop go out in one write (auto-pipelining): under load
 * the rate-limit calls of many requests share a syscall instead of paying one each.
 * BullMQ makes its own connections (it needs `maxRetriesPerRequest: null`).
 */
export function createRedisClient(url: string): Redis {
  const client = new Redis(url, {
    lazyConnect: true,
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
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
