import { useGatewayHarness } from '../../support/gateway-harness.js';
import { chargeMatrix, type KindCase } from './token-kinds-kit.js';

/**
 * Every token kind a chat-format provider reports, charged at its own rate, for a client of each format,
 * streaming and not, passed through (chat) and translated (messages, responses). Rates and the matrix:
 * token-kinds-kit.ts.
 *
 * Chat's `prompt_tokens` INCLUDES cached, cache-write and audio tokens, `completion_tokens` reasoning and
 * audio tokens (wire-formats.md 1.3); in a stream they come in the usage chunk after the finish. Cache
 * writes have no OpenAI field: the fake says `cache_write_tokens` (OpenRouter) and, for the split,
 * `cache_creation_token_details` (LiteLLM), as a chat server in front of Claude does.
 */
const rows: KindCase[] = [
  {
    kind: 'cache reads (cached_tokens)',
    usage: { inputTokens: 12_000, cachedInputTokens: 10_000, outputTokens: 400 },
    // 12,000 input of which 10,000 read: 2,000 × 3,000 = 6,000,000; 10,000 × 300 = 3,000,000; 400 × 15,000
    // = 6,000,000; total 15,000,000 n$ (cached tokens dropped from the streamed usage: 42,000,000, 2.8 times)
    charge: 15_000_000n,
  },
  {
    kind: '5-minute cache writes (cache_write_tokens)',
    usage: { inputTokens: 5_000, cacheWriteInputTokens: 3_000, outputTokens: 400 },
    // 2,000 × 3,000 = 6,000,000; 3,000 written × 3,750 = 11,250,000; 400 × 15,000 = 6,000,000; total 23,250,000 n$
    charge: 23_250_000n,
  },
  {
    kind: '1-hour cache writes (cache_creation_token_details)',
    usage: { inputTokens: 5_000, cacheWriteInputTokens: 3_000, cacheWrite1hInputTokens: 1_000, outputTokens: 400 },
    // 2,000 × 3,000 = 6,000,000; 2,000 × 3,750 = 7,500,000; 1,000 for an hour × 6,000 = 6,000,000; 400 ×
    // 15,000 = 6,000,000; total 25,500,000 n$ (the hour's writes at the 5-minute rate: 23,250,000)
    charge: 25_500_000n,
  },
  {
    kind: 'reasoning inside completion_tokens (OpenAI)',
    usage: { inputTokens: 2_000, outputTokens: 400, reasoningTokens: 300 },
    // completion_tokens 400 of which 300 reasoning: 2,000 × 3,000 = 6,000,000; 400 × 15,000 = 6,000,000;
    // total 12,000,000 n$ (reasoning added again: 16,500,000)
    charge: 12_000_000n,
  },
  {
    kind: 'reasoning beside completion_tokens (other servers)',
    usage: { inputTokens: 2_000, outputTokens: 400, reasoningTokens: 300, reasoningBesideOutput: true },
    // completion_tokens 100, reasoning 300, total_tokens 2,400: 2,000 × 3,000 = 6,000,000; 100 + 300 = 400 ×
    // 15,000 = 6,000,000; total 12,000,000 n$ (reasoning dropped: 7,500,000)
    charge: 12_000_000n,
  },
  {
    kind: 'audio input',
    usage: { inputTokens: 2_500, audioInputTokens: 500, outputTokens: 400 },
    // 2,000 text × 3,000 = 6,000,000; 500 audio × 40,000 = 20,000,000; 400 × 15,000 = 6,000,000; total 32,000,000 n$
    charge: 32_000_000n,
  },
  {
    kind: 'audio output',
    usage: { inputTokens: 2_000, outputTokens: 400, audioOutputTokens: 200 },
    // 2,000 × 3,000 = 6,000,000; 200 text × 15,000 = 3,000,000; 200 audio × 80,000 = 16,000,000; total 25,000,000 n$
    charge: 25_000_000n,
  },
  {
    kind: 'every kind at once',
    usage: {
      inputTokens: 15_500,
      cachedInputTokens: 10_000,
      cacheWriteInputTokens: 3_000,
      cacheWrite1hInputTokens: 1_000,
      audioInputTokens: 500,
      outputTokens: 600,
      reasoningTokens: 300,
      audioOutputTokens: 200,
    },
    // input 15,500 = 2,000 plain + 10,000 read + 3,000 written (1,000 for an hour) + 500 audio:
    // 2,000 × 3,000 = 6,000,000; 10,000 × 300 = 3,000,000; 2,000 × 3,750 = 7,500,000; 1,000 × 6,000 =
    // 6,000,000; 500 × 40,000 = 20,000,000; output 600 = 100 text + 300 reasoning + 200 audio: 400 × 15,000
    // = 6,000,000; 200 × 80,000 = 16,000,000; total 64,500,000 n$
    charge: 64_500_000n,
  },
];

describe('token kinds: a chat-format provider, every client format, streamed and not', function () {
  this.timeout(120_000);
  const current = useGatewayHarness();
  chargeMatrix('chat', rows, current);
});
