import { expect } from 'chai';
import type { FormatName } from '../../../src/formats/canonical/format-name.js';
import type { ScriptedUsage } from '../../../ops/fake-providers/scripted-answer.js';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import { CLIENT_FORMATS } from '../../support/text-format-client.js';
import { exchange, modeOf } from './token-kinds-kit.js';

/**
 * The token-kind failures peer gateways shipped (/work/shared/reference/peer-pitfalls.md, "Token kinds and
 * prices"), each as the request that would show it and the charge as a literal (rates: token-kinds-kit.ts;
 * the matrices of the other files cover every kind the same way).
 */
describe('token kinds: the peer pitfalls', function () {
  this.timeout(120_000);
  const current = useGatewayHarness();

  describe('cached tokens dropped from streamed usage, billing cached input at the full rate (LiteLLM #36168, #39088; new-api #6144; Bifrost #3451)', () => {
    // A prompt that is mostly cache: 100,000 input tokens of which 90,000 read, 100 output tokens.
    // 10,000 × 3,000 = 30,000,000; 90,000 × 300 = 27,000,000; 100 × 15,000 = 1,500,000; total 58,500,000 n$.
    // The reads at the input rate would be 100,000 × 3,000 + 1,500,000 = 301,500,000 n$, 5.2 times as much.
    const cacheHeavy: Readonly<Record<FormatName, ScriptedUsage>> = {
      // Anthropic's input_tokens leaves the reads out; its message_delta says only the output
      messages: { inputTokens: 10_000, cachedInputTokens: 90_000, outputTokens: 100, messageDelta: 'output' },
      chat: { inputTokens: 100_000, cachedInputTokens: 90_000, outputTokens: 100 },
      responses: { inputTokens: 100_000, cachedInputTokens: 90_000, outputTokens: 100 },
    };
    for (const provider of ['messages', 'chat', 'responses'] as const) {
      for (const client of CLIENT_FORMATS) {
        it(`${provider} provider, ${client} client (${modeOf(client, provider)}), streamed: 58,500,000 n$`, async () => {
          const { charge } = await exchange(current(), client, provider, true, { usage: cacheHeavy[provider] });
          expect(charge).to.equal(58_500_000n);
        });
      }
    }
  });

  describe('cache writes at one rate where the provider has two, 5-minute and 1-hour (LiteLLM #42663; new-api #5756)', () => {
    // 2,000 uncached; 4,000 written, 1,500 of them for an hour; 400 output. 2,000 × 3,000 = 6,000,000;
    // 2,500 × 3,750 = 9,375,000; 1,500 × 6,000 = 9,000,000; 400 × 15,000 = 6,000,000; total 30,375,000 n$
    // (every write at the 5-minute rate: 27,000,000; every write at the 1-hour rate: 36,000,000).
    const writes: Readonly<Record<'messages' | 'chat', ScriptedUsage>> = {
      messages: { inputTokens: 2_000, cacheWriteInputTokens: 4_000, cacheWrite1hInputTokens: 1_500, outputTokens: 400, messageDelta: 'output' },
      chat: { inputTokens: 6_000, cacheWriteInputTokens: 4_000, cacheWrite1hInputTokens: 1_500, outputTokens: 400 },
    };
    for (const provider of ['messages', 'chat'] as const) {
      for (const stream of [false, true]) {
        it(`${provider} provider, ${stream ? 'streamed' : 'JSON'}, to a client of every format: 30,375,000 n$`, async () => {
          for (const client of CLIENT_FORMATS) {
            const { charge } = await exchange(current(), client, provider, stream, { usage: writes[provider] });
            expect(charge, `${client} client`).to.equal(30_375_000n);
          }
        });
      }
    }

    it('no count goes below zero when a provider says more cache than input: the parts are bounded by the whole (new-api #5005)', async () => {
      // prompt_tokens 1,000 but 800 read and 500 written: the reads are taken first, the writes get the
      // 200 left, nothing is uncached: 800 × 300 = 240,000; 200 × 3,750 = 750,000; 400 × 15,000 = 6,000,000;
      // total 6,990,000 n$. A messages client sees the counts as reported, none negative.
      const { answer, charge } = await exchange(current(), 'messages', 'chat', false, { usage: { inputTokens: 1_000, cachedInputTokens: 800, cacheWriteInputTokens: 500, outputTokens: 400 } });
      expect(charge).to.equal(6_990_000n);
      expect(answer.body.usage).to.include({ input_tokens: 1_000, cache_read_input_tokens: 800, cache_creation_input_tokens: 500, output_tokens: 400 });
    });
  });

  describe('reasoning tokens counted twice or not at all (agentgateway #3228; llmgateway #3486): one test per convention', () => {
    // 2,000 input, 400 output of which 300 reasoning: 2,000 × 3,000 = 6,000,000; 400 × 15,000 = 6,000,000;
    // total 12,000,000 n$ (counted twice: 16,500,000; dropped: 7,500,000)
    const conventions: Array<[string, FormatName, ScriptedUsage]> = [
      ['OpenAI chat: reasoning_tokens inside completion_tokens', 'chat', { inputTokens: 2_000, outputTokens: 400, reasoningTokens: 300 }],
      ['other chat servers: reasoning_tokens beside completion_tokens (100), total_tokens adding them', 'chat', { inputTokens: 2_000, outputTokens: 400, reasoningTokens: 300, reasoningBesideOutput: true }],
      ['Anthropic: thinking_tokens inside output_tokens', 'messages', { inputTokens: 2_000, outputTokens: 400, reasoningTokens: 300, messageDelta: 'output' }],
      ['responses: reasoning_tokens inside output_tokens', 'responses', { inputTokens: 2_000, outputTokens: 400, reasoningTokens: 300 }],
    ];
    for (const [convention, provider, usage] of conventions) {
      for (const stream of [false, true]) {
        it(`${convention}, ${stream ? 'streamed' : 'JSON'}, to a client of every format: 12,000,000 n$`, async () => {
          for (const client of CLIENT_FORMATS) {
            const { charge } = await exchange(current(), client, provider, stream, { usage });
            expect(charge, `${client} client`).to.equal(12_000_000n);
          }
        });
      }
    }
  });
});
