import { expect } from 'chai';
import { useGatewayHarness } from '../support/gateway-harness.js';
import { postText } from '../support/text-format-client.js';

/**
 * The responses format without stored state (spec 4.3): an input item that only references an earlier,
 * stored answer is refused, whether the model is reached by pass-through or by translation, and before
 * anything is reserved or sent to the provider.
 */
describe('responses: an item_reference in the input', () => {
  const current = useGatewayHarness();

  // openai/gpt-4o-mini speaks responses (pass-through); anthropic/claude-sonnet-4-5 is reached by translation
  for (const model of ['openai/gpt-4o-mini', 'anthropic/claude-sonnet-4-5']) {
    it(`is 400 stateful_not_supported with what to do instead (${model})`, async () => {
      const { orgId, secret } = await current().customer('1');
      const requestsBefore = current().openai.requests.length + current().anthropic.requests.length;
      const answer = await postText(current().gateway.url, 'responses', secret, {
        model,
        input: [
          { role: 'user', content: 'What is the capital of France?' },
          { type: 'item_reference', id: 'msg_0123456789' },
          { role: 'user', content: 'And of Italy?' },
        ],
      });
      expect(answer.status).to.equal(400);
      expect(answer.body.error).to.include({ type: 'invalid_request_error', code: 'stateful_not_supported', param: 'input[1]' });
      expect(answer.body.error.message).to.match(/send the full items/).and.match(/store = false/);
      expect(current().openai.requests.length + current().anthropic.requests.length, 'nothing sent to a provider').to.equal(requestsBefore);
      expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 1_000_000_000n, reserved: 0n });
    });
  }
});
