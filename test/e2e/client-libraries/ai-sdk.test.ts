import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, generateText, type ModelMessage } from 'ai';
import { expect } from 'chai';
import { parseUsd } from '../../../src/billing/money.js';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import { AI_SDK_LIBRARIES } from './ai-sdk-clients.js';
import { describeLibrary } from './library-cases.js';

// The Vercel AI SDK's providers pointed at the gateway (docs/client-libraries.md); the cases are in library-cases.ts.
describe('client libraries: Vercel AI SDK', function () {
  this.timeout(20_000);
  for (const library of AI_SDK_LIBRARIES) describeLibrary(library);

  describe('@ai-sdk/openai (responses) without store: false', () => {
    const current = useGatewayHarness();

    // openai/gpt-4o-mini by pass-through, anthropic/claude-sonnet-4-5 by translation
    const models = [
      // 1,200 × $0.15/M + 300 × $0.60/M = 0.00018 + 0.00018
      { id: 'openai/gpt-4o-mini', fake: () => current().openai, price: '0.00036' },
      // 1,200 × $3/M + 300 × $15/M = 0.0036 + 0.0045
      { id: 'anthropic/claude-sonnet-4-5', fake: () => current().anthropic, price: '0.0081' },
    ];
    for (const model of models) {
      it(`refuses the second turn, sent as an item_reference, with a 400 that names the setting (${model.id})`, async () => {
        const { orgId, secret } = await current().customer('2');
        const client = createOpenAI({ baseURL: `${current().gateway.url}/v1`, apiKey: secret })(model.id);
        model.fake().enqueue({ text: 'Paris.', usage: { inputTokens: 1_200, outputTokens: 300 } });
        const messages: ModelMessage[] = [{ role: 'user', content: 'What is the capital of France?' }];
        const first = await generateText({ model: client, messages, maxRetries: 0 });
        expect(first.text).to.equal('Paris.');
        messages.push(...first.response.messages, { role: 'user', content: 'And of Italy?' });

        const error = await generateText({ model: client, messages, maxRetries: 0 }).then(
          () => expect.fail('expected the second turn to be refused'),
          (thrown: unknown) => thrown,
        );
        if (!APICallError.isInstance(error)) throw error;
        expect(error.statusCode).to.equal(400);
        const body = JSON.parse(error.responseBody ?? '{}') as { error: { code: string; param: string; message: string } };
        expect(body.error).to.include({ code: 'stateful_not_supported', param: 'input[1]' });
        expect(body.error.message).to.contain('providerOptions.openai.store = false');

        expect(model.fake().requests, 'only the first turn reached the provider').to.have.length(1);
        await current().settledMoney(orgId);
        const shown: { balance_usd: string } = await current().admin.ok('GET', `/organizations/${orgId}`);
        expect(parseUsd('2') - parseUsd(shown.balance_usd), 'only the first turn charged').to.equal(parseUsd(model.price));
      });
    }
  });
});
