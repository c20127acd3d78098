import { expect } from 'chai';
import { useGatewayHarness } from '../support/gateway-harness.js';
import { postText } from '../support/text-format-client.js';

/**
 * The per-minute token window counts a request when it is admitted (its input and its output cap) and is
 * corrected when it ends. A request refused before the provider call gives its admission back, and the
 * cap counted is the reserve's: never above the model's response ceiling.
 */
describe('rate-limit admission', () => {
  const current = useGatewayHarness();

  const chat = (maxTokens: number) => ({ model: 'openai/gpt-4o-mini', max_tokens: maxTokens, messages: [{ role: 'user', content: 'hello' }] });

  it('gives the admission back when the reserve is refused, so the next request gets 402 again, not 429', async () => {
    const { secret } = await current().customer('0.0001', { tpm: 1_000 }); // the reserve, 900 × $0.60/M = $0.00054 and more, is above $0.0001
    // 900 output tokens + the input fit 1,000 once; an admission kept after the 402 would refuse the second.
    for (let attempt = 0; attempt < 3; attempt++) {
      const answer = await postText(current().gateway.url, 'chat', secret, chat(900));
      expect(answer.status, `attempt ${attempt + 1}: ${JSON.stringify(answer.body)}`).to.equal(402);
      expect(answer.body.error.code).to.equal('insufficient_funds');
    }
  });

  it("counts the reserve's output cap, not a client's cap above the model's ceiling", async () => {
    // gpt-4o-mini answers at most 16,384 tokens: two requests asking for 128,000 each count about 16,400
    // each against the default 200,000 tokens a minute, where 2 × 128,000 would refuse the second.
    const { secret } = await current().customer('5');
    const answers = await Promise.all([1, 2].map(() => postText(current().gateway.url, 'chat', secret, chat(128_000))));
    expect(answers.map((answer) => answer.status)).to.deep.equal([200, 200]);
  });
});
