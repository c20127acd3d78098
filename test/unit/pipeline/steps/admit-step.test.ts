import { expect } from 'chai';
import { chatEndpoint } from '../../../../src/endpoints/text/text-endpoints.js';
import { InProcessRateLimiter } from '../../../../src/ratelimit/in-process-rate-limiter.js';
import { admitStep, RateLimitRefusal } from '../../../../src/pipeline/steps/admit-step.js';
import { estimateStep } from '../../../../src/pipeline/steps/estimate-step.js';
import { parseStep } from '../../../../src/pipeline/steps/parse-step.js';
import { ManualClock } from '../../../e2e/money-rules/money-rules-kit.js';
import { bodyRead, NOW, testPrices, testCaller, resolvedModel } from '../../../support/pipeline-stages.js';

describe('pipeline step: admit', () => {
  // chat with max_tokens 100: 11 input + 100 output = 111 tokens (estimate-step.test.ts works out the 11)
  const estimated = async (key: { rpm?: number; tpm?: number }, requestId: string) => {
    const parsed = parseStep(bodyRead(chatEndpoint, { model: 'openai/gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] }, testCaller(key)));
    return { ...(await estimateStep({ prices: await testPrices(), clock: { now: () => NOW } }, { ...parsed, ...(await resolvedModel('openai/gpt-4o-mini')) })), requestId };
  };

  it("counts the worst case's tokens against the key, and refuses the request that would pass tokens per minute", async () => {
    const deps = { rateLimiter: new InProcessRateLimiter(new ManualClock('2026-11-26T10:00:00Z')) };
    const first = await admitStep(deps, await estimated({ tpm: 230 }, 'gen-a'));
    expect(first.admittedTokens).to.equal(111);
    await admitStep(deps, await estimated({ tpm: 230 }, 'gen-b')); // 222 ≤ 230
    const refusal = await admitStep(deps, await estimated({ tpm: 230 }, 'gen-c')).catch((error: unknown) => error); // 333 > 230
    expect(refusal).to.be.instanceOf(RateLimitRefusal);
    expect(refusal).to.include({ code: 'rate_limit_exceeded', limit: 'tokens', message: 'more than 230 tokens per minute for this key', retryAfterSeconds: 60 });
  });

  it('refuses the request past requests per minute, naming that limit', async () => {
    const deps = { rateLimiter: new InProcessRateLimiter(new ManualClock('2026-11-26T10:00:00Z')) };
    await admitStep(deps, await estimated({ rpm: 1 }, 'gen-a'));
    const refusal = await admitStep(deps, await estimated({ rpm: 1 }, 'gen-b')).catch((error: unknown) => error);
    expect(refusal).to.include({ limit: 'requests', message: 'more than 1 requests per minute for this key' });
  });
});
