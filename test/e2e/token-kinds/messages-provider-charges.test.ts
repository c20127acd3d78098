import { useGatewayHarness } from '../../support/gateway-harness.js';
import { chargeMatrix, type KindCase } from './token-kinds-kit.js';

/**
 * Every token kind an Anthropic (messages) provider reports, charged at its own rate, for a client of each
 * format, streaming and not, passed through (messages) and translated (chat, responses). Rates and the
 * matrix: token-kinds-kit.ts.
 *
 * Anthropic's `input_tokens` EXCLUDES the cache: the whole input is `input_tokens` + cache reads + cache
 * writes (wire-formats.md 2.2). Its streams are scripted as the streaming docs' example has them: the
 * cache counts and the split of the writes come in `message_start` alone, `message_delta` says only the
 * output (and the thinking tokens) — a gateway reading only the last event would drop the cache (the
 * peer pitfall "cached tokens dropped from streamed usage").
 */
const onlyAtStart = { messageDelta: 'output' } as const;

const rows: KindCase[] = [
  {
    kind: 'cache reads',
    usage: { inputTokens: 2_000, cachedInputTokens: 10_000, outputTokens: 400, ...onlyAtStart },
    // 2,000 uncached × 3,000 = 6,000,000; 10,000 read × 300 = 3,000,000; 400 output × 15,000 = 6,000,000;
    // total 15,000,000 n$ (the reads at the input rate would make it 42,000,000)
    charge: 15_000_000n,
  },
  {
    kind: '5-minute cache writes',
    usage: { inputTokens: 2_000, cacheWriteInputTokens: 3_000, outputTokens: 400, ...onlyAtStart },
    // 2,000 × 3,000 = 6,000,000; 3,000 written × 3,750 = 11,250,000; 400 × 15,000 = 6,000,000; total 23,250,000 n$
    charge: 23_250_000n,
  },
  {
    kind: '1-hour cache writes beside 5-minute ones',
    usage: { inputTokens: 2_000, cacheWriteInputTokens: 3_000, cacheWrite1hInputTokens: 1_000, outputTokens: 400, ...onlyAtStart },
    // 2,000 × 3,000 = 6,000,000; 2,000 written for 5 minutes × 3,750 = 7,500,000; 1,000 written for an hour
    // × 6,000 = 6,000,000; 400 × 15,000 = 6,000,000; total 25,500,000 n$ (all writes at the 5-minute rate: 23,250,000)
    charge: 25_500_000n,
  },
  {
    kind: 'thinking tokens (inside output_tokens)',
    usage: { inputTokens: 2_000, outputTokens: 400, reasoningTokens: 300, ...onlyAtStart },
    // 2,000 × 3,000 = 6,000,000; 100 text + 300 thinking = 400 output × 15,000 = 6,000,000; total 12,000,000 n$
    // (thinking added again: 16,500,000)
    charge: 12_000_000n,
  },
  {
    kind: 'every kind at once',
    usage: { inputTokens: 2_000, cachedInputTokens: 10_000, cacheWriteInputTokens: 3_000, cacheWrite1hInputTokens: 1_000, outputTokens: 400, reasoningTokens: 300, ...onlyAtStart },
    // 2,000 × 3,000 = 6,000,000; 10,000 × 300 = 3,000,000; 2,000 × 3,750 = 7,500,000; 1,000 × 6,000 =
    // 6,000,000; 400 × 15,000 = 6,000,000; total 28,500,000 n$
    charge: 28_500_000n,
  },
  {
    kind: 'cache counts corrected by message_delta (cumulative, the later value wins)',
    // message_start says no cache read; message_delta's cumulative counts say 10,000 (JSON: the final usage)
    usage: { inputTokens: 2_000, cachedInputTokens: 10_000, outputTokens: 400, messageStart: { inputTokens: 2_000, cachedInputTokens: 0, outputTokens: 1 } },
    // as "cache reads": 6,000,000 + 3,000,000 + 6,000,000 = 15,000,000 n$ (message_start's figures alone: 12,000,000)
    charge: 15_000_000n,
  },
];

describe('token kinds: an Anthropic (messages) provider, every client format, streamed and not', function () {
  this.timeout(120_000);
  const current = useGatewayHarness();
  chargeMatrix('messages', rows, current);
});
