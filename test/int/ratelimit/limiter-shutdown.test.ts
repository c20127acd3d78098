import { expect } from 'chai';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { systemClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import { openCore } from '../../../src/core.js';
import { connectRedis, createRedisClient } from '../../../src/ratelimit/redis-client.js';
import { CLOSE_PATIENCE_MS, RedisRateLimiter } from '../../../src/ratelimit/redis-rate-limiter.js';
import { testDatabaseUrl, testRedisPrefix, testRedisUrl } from '../../support/databases.js';
import { startTcpProxy } from '../../../ops/bench/lib/tcp-proxy.js';

/**
 * A request's rate-limit correction is sent without anyone waiting for it (src/pipeline/rate-limit-correction.ts),
 * so the corrections of the last requests before a shutdown are still gathering, or queued in the client's
 * auto-pipeline, when the gateway closes. They must reach Redis before its connection is quit; otherwise the
 * other instances count those requests' estimates, not what they used, until the window passes them.
 */
describe('closing the rate limiter at shutdown (real Redis)', function () {
  this.timeout(30_000);
  const limits = { requestsPerMinute: 10, tokensPerMinute: 1_000 };
  let reader: Redis;

  before(() => {
    reader = new Redis(testRedisUrl());
  });
  after(() => reader.quit());

  /** The window as another instance sees it, read with a connection of its own. */
  async function windowIn(prefix: string, subject: string) {
    const base = `${prefix}rate:{${subject}}`;
    return { tokens: await reader.get(`${base}:tokens`), entries: await reader.zrange(`${base}:entries`, 0, -1) };
  }

  /** How a fire-and-forget correction ended, without leaving a rejection unhandled. */
  const outcome = (correction: Promise<void>) => correction.then(() => 'applied', (error: Error) => error.message);

  it('sends the corrections still gathering and waits for their answer before the client quits', async () => {
    const prefix = testRedisPrefix('shutdown');
    const redis = createRedisClient(testRedisUrl());
    expect(await connectRedis(redis)).to.equal(true);
    const limiter = new RedisRateLimiter(redis, prefix, systemClock);
    expect(await limiter.admit('key_a', 'gen-1', 900, limits)).to.deep.equal({ allowed: true });
    expect(await limiter.admit('key_a', 'gen-2', 50, limits)).to.deep.equal({ allowed: true });
    const corrections = [outcome(limiter.settle('key_a', 'gen-1', 40)), outcome(limiter.settle('key_a', 'gen-2', 7))];
    await limiter.close();
    await redis.quit();
    expect(await Promise.all(corrections)).to.deep.equal(['applied', 'applied']);
    expect(await windowIn(prefix, 'key_a')).to.deep.equal({ tokens: '47', entries: ['gen-1:40', 'gen-2:7'] });
  });

  it('is closed by the core before the core quits the Redis client', async () => {
    const prefix = testRedisPrefix('shutdown');
    const config = loadConfig({ DATABASE_URL: testDatabaseUrl(), REDIS_URL: testRedisUrl(), REDIS_PREFIX: prefix, LOG_LEVEL: 'silent' });
    const core = await openCore(config, pino({ level: 'silent' }), systemClock);
    expect(await core.rateLimiter.admit('key_b', 'gen-1', 900, limits)).to.deep.equal({ allowed: true });
    const correction = outcome(core.rateLimiter.settle('key_b', 'gen-1', 25));
    await core.close();
    expect(await correction).to.equal('applied');
    expect(await windowIn(prefix, 'key_b')).to.deep.equal({ tokens: '25', entries: ['gen-1:25'] });
  });

  it('stops waiting after CLOSE_PATIENCE_MS when Redis no longer answers', async () => {
    const target = new URL(testRedisUrl());
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    // no command timeout on this client: only the limiter's own patience can end the wait
    const redis = new Redis(`redis://127.0.0.1:${proxy.port}`, { lazyConnect: true, enableOfflineQueue: false });
    redis.on('error', () => {});
    try {
      await redis.connect();
      const limiter = new RedisRateLimiter(redis, testRedisPrefix('shutdown'), systemClock);
      expect(await limiter.admit('key_c', 'gen-1', 900, limits)).to.deep.equal({ allowed: true });
      proxy.stall();
      const correction = outcome(limiter.settle('key_c', 'gen-1', 10));
      const started = performance.now();
      await limiter.close();
      const waited = performance.now() - started;
      expect(CLOSE_PATIENCE_MS).to.equal(2_000);
      expect(waited).to.be.within(1_950, 3_000);
      // close gave up on a correction that is still unanswered
      expect(await Promise.race([correction, Promise.resolve('unanswered')])).to.equal('unanswered');
    } finally {
      await proxy.close();
      redis.disconnect();
    }
  });
});
