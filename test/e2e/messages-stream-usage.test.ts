import { expect } from 'chai';
import { useGatewayHarness } from '../support/gateway-harness.js';
import { postText } from '../support/text-format-client.js';

/**
 * A messages stream translated from a provider of another format: Anthropic always fills `input_tokens`
 * in `message_start`, and some clients (LangChain's ChatAnthropic) read the input there alone, so the
 * gateway's own count of the input stands in until the provider's final figures come in `message_delta`.
 */
describe('messages stream from a chat-format provider', () => {
  const current = useGatewayHarness();

  it("starts with the gateway's input count, and ends with the provider's usage", async () => {
    const { secret } = await current().customer('1');
    current().openai.enqueue({ text: 'Hi there', usage: { inputTokens: 9, outputTokens: 7 } });
    const answer = await postText(current().gateway.url, 'messages', secret, {
      model: 'openai/gpt-4o-mini',
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(answer.status).to.equal(200);
    const start = JSON.parse(answer.events!.find((event) => event.event === 'message_start')!.data);
    // The reserve's count: "user" and "hello" are 1 token each, 2 raised by a quarter = 3, plus 4 for each
    // of the 2 objects (the body and the message) = 11.
    expect(start.message.usage.input_tokens).to.equal(11);
    const delta = JSON.parse(answer.events!.find((event) => event.event === 'message_delta')!.data);
    expect(delta.usage).to.include({ output_tokens: 7 });
  });
});
