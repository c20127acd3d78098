import { useGatewayHarness } from '../../support/gateway-harness.js';
import { chargeMatrix, type KindCase } from './token-kinds-kit.js';

/**
 * Every token kind a responses-format provider reports, charged at its own rate, for a client of each
 * format, streaming and not, passed through (responses) and translated (chat, messages). Rates and the
 * matrix: token-kinds-kit.ts.
 *
 * `input_tokens` INCLUDES cached and cache-write tokens, `output_tokens` reasoning (wire-formats.md 3.2); in
 * a stream the usage comes in `response.completed` only. The responses format has no split of cache writes
 * by duration (OpenAI keeps no one-hour writes): its writes are charged at the 5-minute rate.
 */
const rows: KindCase[] = [
  {
    kind: 'cache reads (input_tokens_details.cached_tokens)',
    usage: { inputTokens: 12_000, cachedInputTokens: 10_000, outputTokens: 400 },
    // 2,000 × 3,000 = 6,000,000; 10,000 × 300 = 3,000,000; 400 × 15,000 = 6,000,000; total 15,000,000 n$
    charge: 15_000_000n,
  },
  {
    kind: 'cache writes (input_tokens_details.cache_write_tokens)',
    usage: { inputTokens: 5_000, cacheWriteInputTokens: 3_000, outputTokens: 400 },
    // 2,000 × 3,000 = 6,000,000; 3,000 × 3,750 = 11,250,000; 400 × 15,000 = 6,000,000; total 23,250,000 n$
    charge: 23_250_000n,
  },
  {
    kind: 'reasoning inside output_tokens',
    usage: { inputTokens: 2_000, outputTokens: 400, reasoningTokens: 300 },
    // 2,000 × 3,000 = 6,000,000; 400 × 15,000 = 6,000,000; total 12,000,000 n$ (reasoning added again: 16,500,000)
    charge: 12_000_000n,
  },
  {
    kind: 'audio input',
    usage: { inputTokens: 2_500, audioInputTokens: 500, outputTokens: 400 },
    // 2,000 × 3,000 = 6,000,000; 500 × 40,000 = 20,000,000; 400 × 15,000 = 6,000,000; total 32,000,000 n$
    charge: 32_000_000n,
  },
  {
    kind: 'audio output',
    usage: { inputTokens: 2_000, outputTokens: 400, audioOutputTokens: 200 },
    // 2,000 × 3,000 = 6,000,000; 200 × 15,000 = 3,000,000; 200 × 80,000 = 16,000,000; total 25,000,000 n$
    charge: 25_000_000n,
  },
  {
    kind: 'every kind at once',
    usage: { inputTokens: 15_500, cachedInputTokens: 10_000, cacheWriteInputTokens: 3_000, audioInputTokens: 500, outputTokens: 600, reasoningTokens: 300, audioOutputTokens: 200 },
    // input 15,500 = 2,000 plain + 10,000 read + 3,000 written + 500 audio: 6,000,000 + 3,000,000 +
    // 11,250,000 + 20,000,000 = 40,250,000; output 600 = 100 text + 300 reasoning + 200 audio: 400 × 15,000 =
    // 6,000,000 + 200 × 80,000 = 16,000,000 = 22,000,000; total 62,250,000 n$
    charge: 62_250_000n,
  },
];

describe('token kinds: a responses-format provider, every client format, streamed and not', function () {
  this.timeout(120_000);
  const current = useGatewayHarness();
  chargeMatrix('responses', rows, current);
});
