import { expect } from 'chai';
import { correctRateLimit } from '../../../src/pipeline/rate-limit-correction.js';

/**
 * A request's rate-limit count corrected to the tokens it used. Redis refusing the correction costs no
 * money (the estimate stays counted, erring toward the limit), but it must not pass unseen: it is counted
 * (`gateway_rate_limit_settle_failures_total`) and logged with the request's id.
 */
describe('rate-limit correction', () => {
  it('sends the used tokens, and counts and logs a correction that fails', async () => {
    const settled: unknown[][] = [];
    const warned: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const failure = new Error('Redis went away');
    const deps = {
      rateLimiter: { settle: async (...args: unknown[]) => void settled.push(args) },
      counters: { rateLimitSettleFailures: 0 },
      logger: { warn: (fields: Record<string, unknown>, message: string) => void warned.push({ fields, message }) },
    };
    const run = (limiter: typeof deps.rateLimiter) => correctRateLimit({ ...deps, rateLimiter: limiter } as never, 'key_1', 'req_1', 42);

    run(deps.rateLimiter);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).to.deep.equal([['key_1', 'req_1', 42]]);
    expect(deps.counters.rateLimitSettleFailures).to.equal(0);
    expect(warned).to.deep.equal([]);

    run({ settle: async () => Promise.reject(failure) });
    await new Promise((resolve) => setImmediate(resolve));
    expect(deps.counters.rateLimitSettleFailures).to.equal(1);
    expect(warned).to.deep.equal([{ fields: { err: failure, requestId: 'req_1' }, message: 'could not correct the rate-limit count of a request' }]);
  });
});
