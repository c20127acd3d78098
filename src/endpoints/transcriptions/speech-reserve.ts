import { CostAccumulator } from '../../billing/money.js';
import { countTokens } from '../../billing/token-count.js';
import type { CatalogModel } from '../../catalog/catalog.js';
import type { ReserveEstimate } from '../endpoint-spec.js';

/**
 * The reserve of a transcription, known before the provider has said how long the audio is. The upload's
 * size bounds its duration at the lowest bitrate the gateway reckons with: 16 kbit/s (2,000 bytes a second;
 * speech codecs such as Opus at their lowest settings go below it, and are then under-reserved: the
 * settlement still charges the real duration, recorded as an overrun). A 1 MiB file reserves 525 seconds;
 * the 26 MiB limit caps any reserve at 13,632 seconds (227 minutes).
 */
export const RESERVE_BYTES_PER_SECOND = 2_000;
/**
 * Models priced per token: the audio counted at 25 tokens a second (OpenAI's transcription models bill
 * about 1,000 audio tokens a minute, 17 a second) and the transcript at 10 tokens a second (fast speech is
 * 3–4 words a second), plus the prompt's tokens.
 */
export const RESERVE_AUDIO_TOKENS_PER_SECOND = 25;
export const RESERVE_TRANSCRIPT_TOKENS_PER_SECOND = 10;

export function reservedAudioSeconds(fileBytes: number): number {
  return Math.max(1, Math.ceil(fileBytes / RESERVE_BYTES_PER_SECOND));
}

export function speechReserve(model: CatalogModel, fileBytes: number, prompt: string | undefined): ReserveEstimate {
  const seconds = reservedAudioSeconds(fileBytes);
  const promptTokens = prompt ? countTokens(prompt) : 0;
  const inputTokens = seconds * RESERVE_AUDIO_TOKENS_PER_SECOND + promptTokens;
  const outputTokens = seconds * RESERVE_TRANSCRIPT_TOKENS_PER_SECOND;
  const { pricing } = model;
  const cost = new CostAccumulator();
  if (pricing.perAudioMinute !== undefined) cost.addFraction(BigInt(seconds), 60n, pricing.perAudioMinute);
  cost.addPerMillion(inputTokens, pricing.inputPerMillion ?? 0n).addPerMillion(outputTokens, pricing.outputPerMillion ?? 0n);
  // The key's tokens per minute count tokens: the prompt's, and for a model priced per token the estimate
  // (corrected to the reported usage afterwards). Audio billed by the minute is not tokens.
  const rateLimitTokens = pricing.perAudioMinute !== undefined ? promptTokens : inputTokens + outputTokens;
  return { amount: cost.total(), rateLimitTokens, inputTokens };
}
