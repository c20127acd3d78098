import { expect } from 'chai';
import { Redis } from 'ioredis';
import { InProcessRateLimiter } from '../../../src/ratelimit/in-process-rate-limiter.js';
import type { RateLimiter } from '../../../src/ratelimit/rate-limiter.js';
import { connectRedis, createRedisClient } from '../../../src/ratelimit/redis-client.js';
import { RedisRateLimiter } from '../../../src/ratelimit/redis-rate-limiter.js';
import { testRedisPrefix, testRedisUrl } from '../../support/databases.js';
import { limiterAdapters, ManualClock } from './limiter-adapters.js';

/**
 * The edges of the sliding window, to the token and to the millisecond, for both limiters (the embedded
 * mode's and the shared one must agree): what fits exactly is admitted, one more is refused, and the
 * Retry-After is the wait until just enough has left the window (peer-pitfalls, rate limits).
 */
const adapters = limiterAdapters('bounds');

const T0 = 1_750_000_000_000;

for (const [name, create] of adapters) {
  describe(`rate-limit window boundaries (${name})`, () => {
    let clock: ManualClock;
    let limiter: RateLimiter;
    let close: () => Promise<void>;
    beforeEach(async () => {
      clock = new ManualClock(T0);
      ({ limiter, close } = await create(clock));
    });
    afterEach(() => close());
    const at = (offsetMs: number) => void (clock.ms = T0 + offsetMs);
    const tokenLimit = { requestsPerMinute: 1_000, tokensPerMinute: 100 };

    it('admits the request that fills the token limit exactly and refuses one token more', async () => {
      expect(await limiter.admit('key', 'gen-1', 60, tokenLimit)).to.deep.equal({ allowed: true });
      at(10_000);
      expect(await limiter.admit('key', 'gen-2', 40, tokenLimit), '60 + 40 = 100').to.deep.equal({ allowed: true });
      at(20_000);
      // gen-1 leaving (at 60 s) is enough for one token: 40 s from now
      expect(await limiter.admit('key', 'gen-3', 1, tokenLimit)).to.deep.equal({ allowed: false, reason: 'tokens', retryAfterMs: 40_000 });
    });

    it('names the wait until just enough tokens have left, counting a fit to the last token', async () => {
      expect(await limiter.admit('key', 'gen-1', 60, tokenLimit)).to.deep.equal({ allowed: true });
      at(10_000);
      expect(await limiter.admit('key', 'gen-2', 40, tokenLimit)).to.deep.equal({ allowed: true });
      at(20_000);
      // once gen-1 leaves, 40 + 60 = 100 fits exactly: the wait ends when gen-1 leaves, at 60 s
      expect(await limiter.admit('key', 'gen-3', 60, tokenLimit)).to.deep.equal({ allowed: false, reason: 'tokens', retryAfterMs: 40_000 });
      // 61 needs gen-2 gone too, at 70 s
      expect(await limiter.admit('key', 'gen-4', 61, tokenLimit)).to.deep.equal({ allowed: false, reason: 'tokens', retryAfterMs: 50_000 });
    });

    it('makes a request of exactly the token limit wait for the window to empty, not a whole minute', async () => {
      expect(await limiter.admit('key', 'gen-1', 10, tokenLimit)).to.deep.equal({ allowed: true });
      at(15_000);
      expect(await limiter.admit('key', 'gen-2', 100, tokenLimit)).to.deep.equal({ allowed: false, reason: 'tokens', retryAfterMs: 45_000 });
      at(60_000);
      expect(await limiter.admit('key', 'gen-3', 100, tokenLimit), 'the empty window holds exactly 100').to.deep.equal({ allowed: true });
    });

    it('lets an admission leave the window at exactly 60,000 ms, not a millisecond earlier', async () => {
      const oneRequest = { requestsPerMinute: 1, tokensPerMinute: 1_000 };
      expect(await limiter.admit('requests', 'gen-1', 1, oneRequest)).to.deep.equal({ allowed: true });
      expect(await limiter.admit('tokens', 'gen-2', 50, { requestsPerMinute: 1_000, tokensPerMinute: 50 })).to.deep.equal({ allowed: true });
      at(59_999);
      expect(await limiter.admit('requests', 'gen-3', 1, oneRequest)).to.deep.equal({ allowed: false, reason: 'requests', retryAfterMs: 1 });
      expect(await limiter.admit('tokens', 'gen-4', 1, { requestsPerMinute: 1_000, tokensPerMinute: 50 })).to.deep.equal({
        allowed: false,
        reason: 'tokens',
        retryAfterMs: 1,
      });
      at(60_000);
      // every admission of these windows has left: both are empty again
      expect(await limiter.admit('requests', 'gen-5', 1, oneRequest)).to.deep.equal({ allowed: true });
      expect(await limiter.admit('tokens', 'gen-6', 50, { requestsPerMinute: 1_000, tokensPerMinute: 50 })).to.deep.equal({ allowed: true });
    });

    it('after a key’s limit is lowered below its window, waits until enough requests have left', async () => {
      const three = { requestsPerMinute: 3, tokensPerMinute: 1_000 };
      for (const [offset, id] of [[0, 'gen-1'], [1_000, 'gen-2'], [2_000, 'gen-3']] as const) {
        at(offset);
        expect(await limiter.admit('key', id, 1, three)).to.deep.equal({ allowed: true });
      }
      at(3_000);
      // three in the window, two allowed: a fourth fits once gen-1 and gen-2 have left, at 61 s
      expect(await limiter.admit('key', 'gen-4', 1, { requestsPerMinute: 2, tokensPerMinute: 1_000 })).to.deep.equal({
        allowed: false,
        reason: 'requests',
        retryAfterMs: 58_000,
      });
    });

    it('applies corrections sent one after another, each in turn', async () => {
      expect(await limiter.admit('key', 'gen-1', 50, tokenLimit)).to.deep.equal({ allowed: true });
      expect(await limiter.admit('key', 'gen-2', 50, tokenLimit)).to.deep.equal({ allowed: true });
      await limiter.settle('key', 'gen-1', 10);
      await limiter.settle('key', 'gen-2', 10);
      expect(await limiter.admit('key', 'gen-3', 80, tokenLimit), '10 + 10 + 80 = 100').to.deep.equal({ allowed: true });
      expect(await limiter.admit('key', 'gen-4', 1, tokenLimit)).to.deep.equal({ allowed: false, reason: 'tokens', retryAfterMs: 60_000 });
    });
  });
}

describe('rate-limit window in Redis (keys and whole tokens)', () => {
  let redis: Redis;
  let reader: Redis;
  before(async () => {
    redis = createRedisClient(testRedisUrl());
    await connectRedis(redis);
    reader = new Redis(testRedisUrl());
  });
  after(() => {
    redis.disconnect();
    reader.disconnect();
  });

  it('keeps a key’s window under the prefix in three keys with one hash tag, expiring with the window', async () => {
    const prefix = testRedisPrefix('keys');
    const limiter = new RedisRateLimiter(redis, prefix, new ManualClock(T0));
    expect(await limiter.admit('key_k', 'gen-1', 25, { requestsPerMinute: 10, tokensPerMinute: 100 })).to.deep.equal({ allowed: true });
    const base = `${prefix}rate:{key_k}`;
    // the hash tag {key_k} keeps the three on one Redis Cluster slot, as the script needs
    expect((await reader.keys(`${prefix}*`)).sort()).to.deep.equal([`${base}:entries`, `${base}:ids`, `${base}:tokens`]);
    expect(await reader.zrange(`${base}:entries`, 0, -1, 'WITHSCORES')).to.deep.equal(['gen-1:25', String(T0)]);
    expect(await reader.hgetall(`${base}:ids`)).to.deep.equal({ 'gen-1': 'gen-1:25' });
    expect(await reader.get(`${base}:tokens`)).to.equal('25');
    for (const suffix of ['entries', 'ids', 'tokens']) expect(await reader.pttl(`${base}:${suffix}`)).to.be.within(59_000, 60_000);
    await limiter.settle('key_k', 'gen-1', 7);
    expect(await reader.zrange(`${base}:entries`, 0, -1, 'WITHSCORES'), 'the admission time is kept').to.deep.equal(['gen-1:7', String(T0)]);
    expect(await reader.hgetall(`${base}:ids`)).to.deep.equal({ 'gen-1': 'gen-1:7' });
    expect(await reader.get(`${base}:tokens`)).to.equal('7');
  });

  it('counts whole tokens, rounding a fraction up and a negative count to 0', async () => {
    const prefix = testRedisPrefix('keys');
    const limiter = new RedisRateLimiter(redis, prefix, new ManualClock(T0));
    const limits = { requestsPerMinute: 10, tokensPerMinute: 100 };
    expect(await limiter.admit('key_w', 'gen-1', 2.2, limits)).to.deep.equal({ allowed: true });
    expect(await limiter.admit('key_w', 'gen-2', -5, limits)).to.deep.equal({ allowed: true });
    expect(await reader.get(`${prefix}rate:{key_w}:tokens`)).to.equal('3');
    await limiter.settle('key_w', 'gen-1', 0.5);
    await limiter.settle('key_w', 'gen-2', -1);
    expect(await reader.zrange(`${prefix}rate:{key_w}:entries`, 0, -1)).to.deep.equal(['gen-1:1', 'gen-2:0']);
  });
});

describe('in-process rate limiter over a long queue', () => {
  it('keeps its counts exact when it compacts the queue of requests that left the window', async () => {
    const clock = new ManualClock(T0);
    const limiter = new InProcessRateLimiter(clock);
    const limits = { requestsPerMinute: 5_000, tokensPerMinute: 10_000 };
    // more than the 1,024 departed entries after which the queue is compacted
    for (let i = 0; i < 1_100; i++) expect(await limiter.admit('key', `old-${i}`, 1, limits)).to.deep.equal({ allowed: true });
    clock.ms = T0 + 30_000;
    expect(await limiter.admit('key', 'mid-1', 100, limits)).to.deep.equal({ allowed: true });
    clock.ms = T0 + 60_000;
    // the 1,100 old ones leave (and the queue is compacted) on this call: 100 + 9,800 = 9,900
    expect(await limiter.admit('key', 'new-1', 9_800, limits)).to.deep.equal({ allowed: true });
    // 9,900 + 101 is over; once mid-1 leaves (at 90 s), 9,800 + 101 fits
    expect(await limiter.admit('key', 'new-2', 101, limits)).to.deep.equal({ allowed: false, reason: 'tokens', retryAfterMs: 30_000 });
    clock.ms = T0 + 90_000;
    expect(await limiter.admit('key', 'new-3', 200, limits), '9,800 + 200 = 10,000').to.deep.equal({ allowed: true });
    // mid-1 has left the window: correcting it now must change nothing
    await limiter.settle('key', 'mid-1', 0);
    expect(await limiter.admit('key', 'new-4', 1, limits)).to.deep.equal({ allowed: false, reason: 'tokens', retryAfterMs: 30_000 });
    await limiter.settle('key', 'new-3', 0);
    expect(await limiter.admit('key', 'new-5', 200, limits), 'new-3 corrected to 0 after the compaction').to.deep.equal({ allowed: true });
  });
});
