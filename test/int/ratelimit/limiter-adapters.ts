import type { Clock } from '../../../src/clock.js';
import { InProcessRateLimiter } from '../../../src/ratelimit/in-process-rate-limiter.js';
import type { RateLimiter } from '../../../src/ratelimit/rate-limiter.js';
import { connectRedis, createRedisClient } from '../../../src/ratelimit/redis-client.js';
import { RedisRateLimiter } from '../../../src/ratelimit/redis-rate-limiter.js';
import { testRedisPrefix, testRedisUrl } from '../../support/databases.js';

/** A clock the test moves by hand, to the millisecond. */
export class ManualClock implements Clock {
  constructor(public ms: number) {}
  now() {
    return new Date(this.ms);
  }
}

export type LimiterFactory = (clock: Clock) => Promise<{ limiter: RateLimiter; close: () => Promise<void> }>;

/**
 * Both limiters, the embedded mode's and the shared one, for suites that hold them to the same rules. The
 * Redis one uses the gateway's own client (it refuses commands until connected, so connect first as the
 * gateway does) under a test prefix named `prefixName`.
 */
export function limiterAdapters(prefixName: string): Array<[string, LimiterFactory]> {
  return [
    ['in-process', async (clock) => ({ limiter: new InProcessRateLimiter(clock), close: async () => {} })],
    [
      'redis',
      async (clock) => {
        const redis = createRedisClient(testRedisUrl());
        await connectRedis(redis);
        return { limiter: new RedisRateLimiter(redis, testRedisPrefix(prefixName), clock), close: async () => void redis.disconnect() };
      },
    ],
  ];
}
