import { expect } from 'chai';
import type { FormatName } from '../../../src/formats/canonical/format-name.js';
import type { ScriptedUsage } from '../../../ops/fake-providers/scripted-answer.js';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import { CLIENT_FORMATS, type ClientFormat, type GatewayAnswer } from '../../support/text-format-client.js';
import { exchange, modeOf } from './token-kinds-kit.js';

/**
 * What a client is shown of the token kinds, in its own format, when the provider reported every kind it
 * can: the same detail, under the client format's names, in a JSON answer and in a stream (chat's usage
 * chunk; messages' `message_start` usage updated by `message_delta`'s, as Anthropic documents them;
 * responses' `response.completed`). A passed-through answer shows the provider's usage as it came, except
 * that the messages `input_tokens` is the whole input (spec 2.2), cache included. Every figure a literal.
 */
const reported: Readonly<Record<FormatName, ScriptedUsage>> = {
  // Anthropic: 2,000 uncached + 10,000 read + 3,000 written (1,000 for an hour) = 15,000 in all
  messages: { inputTokens: 2_000, cachedInputTokens: 10_000, cacheWriteInputTokens: 3_000, cacheWrite1hInputTokens: 1_000, outputTokens: 400, reasoningTokens: 300, messageDelta: 'output' },
  chat: { inputTokens: 15_500, cachedInputTokens: 10_000, cacheWriteInputTokens: 3_000, cacheWrite1hInputTokens: 1_000, audioInputTokens: 500, outputTokens: 600, reasoningTokens: 300, audioOutputTokens: 200 },
  responses: { inputTokens: 15_500, cachedInputTokens: 10_000, cacheWriteInputTokens: 3_000, audioInputTokens: 500, outputTokens: 600, reasoningTokens: 300, audioOutputTokens: 200 },
};

const split = (fiveMinutes: number, oneHour: number) => ({ ephemeral_5m_input_tokens: fiveMinutes, ephemeral_1h_input_tokens: oneHour });

const shown: Readonly<Record<FormatName, Readonly<Record<ClientFormat, unknown>>>> = {
  messages: {
    chat: {
      prompt_tokens: 15_000,
      completion_tokens: 400,
      total_tokens: 15_400,
      prompt_tokens_details: { cached_tokens: 10_000, cache_write_tokens: 3_000, cache_creation_token_details: split(2_000, 1_000) },
      completion_tokens_details: { reasoning_tokens: 300 },
    },
    messages: {
      input_tokens: 15_000,
      cache_creation_input_tokens: 3_000,
      cache_read_input_tokens: 10_000,
      cache_creation: split(2_000, 1_000),
      output_tokens: 400,
      output_tokens_details: { thinking_tokens: 300 },
      service_tier: 'standard',
    },
    responses: {
      input_tokens: 15_000,
      input_tokens_details: { cached_tokens: 10_000, cache_write_tokens: 3_000, cache_creation_token_details: split(2_000, 1_000) },
      output_tokens: 400,
      output_tokens_details: { reasoning_tokens: 300 },
      total_tokens: 15_400,
    },
  },
  chat: {
    chat: {
      prompt_tokens: 15_500,
      completion_tokens: 600,
      total_tokens: 16_100,
      prompt_tokens_details: { cached_tokens: 10_000, audio_tokens: 500, cache_write_tokens: 3_000, cache_creation_token_details: split(2_000, 1_000) },
      completion_tokens_details: { reasoning_tokens: 300, audio_tokens: 200, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
    // the messages format has no audio counts: the 500 and 200 audio tokens are charged, not shown
    messages: { input_tokens: 15_500, cache_creation_input_tokens: 3_000, cache_read_input_tokens: 10_000, cache_creation: split(2_000, 1_000), output_tokens: 600, output_tokens_details: { thinking_tokens: 300 } },
    responses: {
      input_tokens: 15_500,
      input_tokens_details: { cached_tokens: 10_000, cache_write_tokens: 3_000, cache_creation_token_details: split(2_000, 1_000), audio_tokens: 500 },
      output_tokens: 600,
      output_tokens_details: { reasoning_tokens: 300, audio_tokens: 200 },
      total_tokens: 16_100,
    },
  },
  responses: {
    // writes of no stated duration are shown as they are charged: five-minute writes
    chat: {
      prompt_tokens: 15_500,
      completion_tokens: 600,
      total_tokens: 16_100,
      prompt_tokens_details: { cached_tokens: 10_000, cache_write_tokens: 3_000, cache_creation_token_details: split(3_000, 0), audio_tokens: 500 },
      completion_tokens_details: { reasoning_tokens: 300, audio_tokens: 200 },
    },
    messages: { input_tokens: 15_500, cache_creation_input_tokens: 3_000, cache_read_input_tokens: 10_000, cache_creation: split(3_000, 0), output_tokens: 600, output_tokens_details: { thinking_tokens: 300 } },
    responses: {
      input_tokens: 15_500,
      input_tokens_details: { cached_tokens: 10_000, cache_write_tokens: 3_000, audio_tokens: 500 },
      output_tokens: 600,
      output_tokens_details: { reasoning_tokens: 300, audio_tokens: 200 },
      total_tokens: 16_100,
    },
  },
};

/** The usage a client of `client` format is left with at the end of the answer. */
function usageShown(client: ClientFormat, answer: GatewayAnswer): unknown {
  if (answer.body) return answer.body.usage;
  const payloads = answer.events!.filter((event) => event.data !== '[DONE]').map((event) => JSON.parse(event.data));
  switch (client) {
    case 'chat':
      return payloads.find((chunk) => Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.usage).usage;
    case 'messages': {
      const start = payloads.find((event) => event.type === 'message_start').message.usage;
      const delta = payloads.find((event) => event.type === 'message_delta').usage;
      return { ...start, ...delta };
    }
    case 'responses':
      return payloads.find((event) => event.type === 'response.completed').response.usage;
  }
}

describe('token kinds: the usage each client format is shown', function () {
  this.timeout(60_000);
  const current = useGatewayHarness();

  for (const stream of [false, true]) {
    it(`a chat server that reports reasoning beside completion_tokens: a chat client is shown the whole output, as charged (pass-through, ${stream ? 'streamed' : 'JSON'})`, async () => {
      const { answer } = await exchange(current(), 'chat', 'chat', stream, { usage: { inputTokens: 2_000, outputTokens: 400, reasoningTokens: 300, reasoningBesideOutput: true } });
      // the server said completion_tokens 100 and total_tokens 2,400: the completion is made 100 + 300 = 400
      expect(usageShown('chat', answer)).to.deep.include({ prompt_tokens: 2_000, completion_tokens: 400, total_tokens: 2_400 });
    });
  }

  for (const provider of ['messages', 'chat', 'responses'] as const) {
    for (const client of CLIENT_FORMATS) {
      for (const stream of [false, true]) {
        it(`${provider} provider → ${client} client (${modeOf(client, provider)}, ${stream ? 'streamed' : 'JSON'})`, async () => {
          const { answer } = await exchange(current(), client, provider, stream, { usage: reported[provider] });
          expect(usageShown(client, answer)).to.deep.equal(shown[provider][client]);
        });
      }
    }
  }
});
