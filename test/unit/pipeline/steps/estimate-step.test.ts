import { expect } from 'chai';
import { imagesEndpoint } from '../../../../src/endpoints/images/images-endpoint.js';
import { chatEndpoint } from '../../../../src/endpoints/text/text-endpoints.js';
import { estimateStep } from '../../../../src/pipeline/steps/estimate-step.js';
import { parseStep } from '../../../../src/pipeline/steps/parse-step.js';
import { bodyRead, NOW, testPrices, resolvedModel } from '../../../support/pipeline-stages.js';

describe('pipeline step: estimate', () => {
  it("prices the endpoint's worst case: chat's n answers of the cap, the input once", async () => {
    const parsed = parseStep(bodyRead(chatEndpoint, { model: 'openai/gpt-4o-mini', max_tokens: 100, n: 2, messages: [{ role: 'user', content: 'hello' }] }));
    const stage = await estimateStep({ prices: await testPrices(), clock: { now: () => NOW } }, { ...parsed, ...(await resolvedModel('openai/gpt-4o-mini')) });
    // input: "user" and "hello" 1 token each, × 5/4 = 3; two objects × 4 = 8; 11 tokens. Output: 2 × 100.
    // 11 × 150 + 200 × 600 = 1,650 + 120,000 = 121,650 n$; the key's tokens per minute count 11 + 200 = 211
    expect(stage.estimate.worstCase).to.include({ inputTokens: 11, outputTokens: 200 });
    expect(stage.amount).to.equal(121_650n);
    expect(stage.estimate.rateLimitTokens).to.equal(211);
  });

  it('reserves the PII masking fee with a masked request', async () => {
    const parsed = parseStep({ ...bodyRead(chatEndpoint, { model: 'openai/gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] }), masking: 'applied' });
    const stage = await estimateStep({ prices: await testPrices(), clock: { now: () => NOW } }, { ...parsed, ...(await resolvedModel('openai/gpt-4o-mini')) });
    // input 11 tokens (as above) × 150 = 1,650; output 100 × 600 = 60,000; the test catalog's fee $0.002 = 2,000,000 n$
    expect(stage.estimate.worstCase).to.include({ inputTokens: 11, outputTokens: 100, piiMaskedRequests: 1 });
    expect(stage.amount).to.equal(2_061_650n);
  });

  it('prices n images at the per-image price', async () => {
    const parsed = parseStep(bodyRead(imagesEndpoint, { model: 'openai/gpt-image-1', prompt: 'a lighthouse', n: 3 }));
    const stage = await estimateStep({ prices: await testPrices(), clock: { now: () => NOW } }, { ...parsed, ...(await resolvedModel('openai/gpt-image-1')) });
    // 3 × $0.04 = 120,000,000 n$
    expect(stage.amount).to.equal(120_000_000n);
  });
});
