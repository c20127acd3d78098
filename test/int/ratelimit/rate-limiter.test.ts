import { expect } from 'chai';
import type { RateLimiter } from '../../../src/ratelimit/rate-limiter.js';
import { limiterAdapters, ManualClock } from './limiter-adapters.js';

const adapters = limiterAdapters('rate');

for (const [name, create] of adapters) {
  describe(`rate limiter (${name})`, () => {
    let clock: ManualClock;
    let limiter: RateLimiter;
    let close: () => Promise<void>;
    beforeEach(async () => {
      clock = new ManualClock(Date.now());
      ({ limiter, close } = await create(clock));
    });
    afterEach(() => close());

    it('passes the 120th request of a minute and refuses the 121st with an honest Retry-After', async () => {
      const limits = { requestsPerMinute: 120, tokensPerMinute: 1_000_000 };
      const start = clock.ms;
      for (let i = 0; i < 120; i++) {
        clock.ms = start + i * 100; // spread over 12 s
        expect(await limiter.admit('key_a', `gen-${i}`, 1, limits), `request ${i + 1}`).to.deep.equal({ allowed: true });
      }
      clock.ms = start + 20_000;
      const refused = await limiter.admit('key_a', 'gen-121', 1, limits);
      // the oldest request leaves the window at start + 60 s: 40 s from now
      expect(refused).to.deep.equal({ allowed: false, reason: 'requests', retryAfterMs: 40_000 });
      clock.ms = start + 60_000;
      expect(await limiter.admit('key_a', 'gen-122', 1, limits), 'one slot freed').to.deep.equal({ allowed: true });
      expect(await limiter.admit('key_a', 'gen-123', 1, limits), 'only one').to.include({ allowed: false });
      expect(await limiter.admit('key_b', 'gen-b', 1, limits), 'other keys are separate').to.deep.equal({ allowed: true });
    });

    it('counts tokens at admission so a concurrent burst cannot overshoot the token limit', async () => {
      const limits = { requestsPerMinute: 1000, tokensPerMinute: 100 };
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => limiter.admit('key_t', `gen-${i}`, 30, limits)));
      expect(results.filter((result) => result.allowed)).to.have.length(3); // 90 of 100 tokens
      const refused = results.find((result) => !result.allowed)!;
      expect(refused).to.deep.include({ reason: 'tokens', retryAfterMs: 60_000 });
    });

    it('replaces the estimate by the real usage on settle', async () => {
      const limits = { requestsPerMinute: 1000, tokensPerMinute: 100 };
      expect(await limiter.admit('key_s', 'gen-1', 90, limits)).to.deep.equal({ allowed: true });
      expect(await limiter.admit('key_s', 'gen-2', 20, limits)).to.include({ allowed: false });
      await limiter.settle('key_s', 'gen-1', 10);
      expect(await limiter.admit('key_s', 'gen-3', 20, limits)).to.deep.equal({ allowed: true });
    });

    it('gives back the tokens of requests that left the window', async () => {
      const limits = { requestsPerMinute: 1000, tokensPerMinute: 100 };
      const start = clock.ms;
      expect(await limiter.admit('key_w', 'gen-1', 60, limits)).to.deep.equal({ allowed: true });
      clock.ms = start + 30_000;
      expect(await limiter.admit('key_w', 'gen-2', 30, limits)).to.deep.equal({ allowed: true });
      expect(await limiter.admit('key_w', 'gen-3', 30, limits)).to.deep.equal({ allowed: false, reason: 'tokens', retryAfterMs: 30_000 });
      clock.ms = start + 60_000;
      expect(await limiter.admit('key_w', 'gen-4', 60, limits), 'gen-1 left: 30 of 100 used').to.deep.equal({ allowed: true });
      await limiter.settle('key_w', 'gen-1', 5); // gone from the window: changes nothing
      expect(await limiter.admit('key_w', 'gen-5', 20, limits)).to.include({ allowed: false });
    });

    it('refuses a single request larger than the whole token limit', async () => {
      expect(await limiter.admit('key_x', 'gen-1', 500, { requestsPerMinute: 10, tokensPerMinute: 100 })).to.deep.equal({
        allowed: false,
        reason: 'tokens',
        retryAfterMs: 60_000,
      });
    });
  });
}
