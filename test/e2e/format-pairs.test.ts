import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';

/**
 * Every client format against every provider format, over HTTP, through the official SDKs: plain text
 * and several tool calls, streaming and not. Each request is also checked for its money: charged, and
 * nothing left reserved. (The translators' own suite, test/unit/formats, covers the finer cases.)
 */
const PROVIDERS = [
  { format: 'chat', model: 'local/llama', fake: 'openai' },
  { format: 'messages', model: 'anthropic/claude-sonnet-4-5', fake: 'anthropic' },
  { format: 'responses', model: 'oairesp/gpt-4o-mini', fake: 'openai' },
] as const;
const CLIENTS = ['chat', 'messages', 'responses'] as const;
const TOOLS = [
  { name: 'get_weather', arguments: { city: 'Paris' } },
  { name: 'get_time', arguments: { zone: 'CET' } },
];

interface Answer {
  text: string;
  toolCalls: Array<{ name: string; arguments: unknown }>;
  stop: string;
}

describe('format pairs end to end (official SDKs)', function () {
  this.timeout(60_000);
  let harness: GatewayHarness;
  before(async () => {
    harness = await startGatewayHarness();
  });
  after(async () => {
    await harness.checkLedger();
    await harness.close();
  });

  async function ask(client: (typeof CLIENTS)[number], secret: string, model: string, stream: boolean, withTools: boolean): Promise<Answer> {
    const base = harness.gateway.url;
    if (client === 'chat') {
      const openai = new OpenAI({ apiKey: secret, baseURL: `${base}/v1`, maxRetries: 0 });
      const params = {
        model,
        max_tokens: 200,
        messages: [
          { role: 'system' as const, content: 'be brief' },
          { role: 'user' as const, content: 'hello' },
        ],
        ...(withTools ? { tools: TOOLS.map((tool) => ({ type: 'function' as const, function: { name: tool.name, parameters: { type: 'object', properties: {} } } })) } : {}),
      };
      const completion = stream ? await openai.chat.completions.stream(params).finalChatCompletion() : await openai.chat.completions.create(params);
      const choice = completion.choices[0]!;
      return {
        text: choice.message.content ?? '',
        toolCalls: (choice.message.tool_calls ?? []).map((call) => (call.type === 'function' ? { name: call.function.name, arguments: JSON.parse(call.function.arguments) } : { name: '?', arguments: null })),
        stop: choice.finish_reason,
      };
    }
    if (client === 'messages') {
      // the SDK's base URL is the gateway root: it appends /v1/messages itself (spec 9.1)
      const anthropic = new Anthropic({ apiKey: secret, baseURL: base, maxRetries: 0 });
      const params = {
        model,
        max_tokens: 200,
        system: 'be brief',
        messages: [{ role: 'user' as const, content: 'hello' }],
        ...(withTools ? { tools: TOOLS.map((tool) => ({ name: tool.name, input_schema: { type: 'object' as const, properties: {} } })) } : {}),
      };
      const message = stream ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.create(params);
      return {
        text: message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(''),
        toolCalls: message.content.flatMap((block) => (block.type === 'tool_use' ? [{ name: block.name, arguments: block.input }] : [])),
        stop: message.stop_reason ?? '',
      };
    }
    const openai = new OpenAI({ apiKey: secret, baseURL: `${base}/v1`, maxRetries: 0 });
    const params = {
      model,
      max_output_tokens: 200,
      instructions: 'be brief',
      input: 'hello',
      ...(withTools ? { tools: TOOLS.map((tool) => ({ type: 'function' as const, name: tool.name, parameters: { type: 'object', properties: {} }, strict: false })) } : {}),
    };
    const response = stream ? await openai.responses.stream(params).finalResponse() : await openai.responses.create(params);
    return {
      text: response.output.flatMap((item) => (item.type === 'message' ? item.content.flatMap((part) => (part.type === 'output_text' ? [part.text] : [])) : [])).join(''),
      toolCalls: response.output.flatMap((item) => (item.type === 'function_call' ? [{ name: item.name, arguments: JSON.parse(item.arguments) }] : [])),
      stop: response.status ?? '',
    };
  }

  for (const provider of PROVIDERS) {
    for (const client of CLIENTS) {
      for (const stream of [false, true]) {
        it(`${client} client → ${provider.format} provider, ${stream ? 'streaming' : 'not streaming'}: text and several tool calls, charged`, async () => {
          const { orgId, secret } = await harness.customer();
          const fake = harness[provider.fake];
          fake.reset();
          fake.enqueue({ text: 'Hi there, friend.', deltas: 3, usage: { inputTokens: 20, outputTokens: 10 } });
          const plain = await ask(client, secret, provider.model, stream, false);
          expect(plain.text).to.equal('Hi there, friend.');
          expect(plain.toolCalls).to.deep.equal([]);
          expect(plain.stop).to.equal({ chat: 'stop', messages: 'end_turn', responses: 'completed' }[client]);

          fake.enqueue({ toolCalls: TOOLS, usage: { inputTokens: 30, outputTokens: 15 } });
          const tools = await ask(client, secret, provider.model, stream, true);
          expect(tools.toolCalls).to.deep.equal(TOOLS);
          expect(tools.stop).to.equal({ chat: 'tool_calls', messages: 'tool_use', responses: 'completed' }[client]);

          const money = await harness.settledMoney(orgId);
          expect(money.reserved).to.equal(0n);
          const charged = 10_000_000_000n - money.balance;
          const prices = provider.model.startsWith('anthropic/') ? [3_000n, 15_000n] : provider.model.startsWith('local/') ? [100n, 200n] : [150n, 600n];
          expect(charged).to.equal(50n * prices[0]! + 25n * prices[1]!);
        });
      }
    }
  }
});
