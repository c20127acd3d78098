/**
 * What one provider call used, in one meaning for every format and every API: text formats (which
 * disagree — chat `prompt_tokens` includes cached tokens, Anthropic `input_tokens` excludes them;
 * wire-formats.md 1.3, 2.2, 3.2, 7.3, 7.4), embeddings, images, transcription and video. Pricing reads it
 * (catalog/pricing.ts) and the ledger records it with each settlement.
 *
 * Versioned like vercel/ai's usage types: settlement reads it, so a change of meaning is a new version,
 * never a silent edit. In version 2 an absent field was not reported, which is not the same as 0: a provider
 * that says `cached_tokens: 0` and one that says nothing about its cache are told apart (version 1 filled in
 * 0 for every count the provider left out). Build one with `createUsage`, which leaves such fields out.
 */
export interface UsageV2 {
  readonly version: 2;
  /** The whole input: uncached + cache read + cache write, audio included. */
  readonly inputTokens?: number;
  /** Part of `inputTokens` read from the prompt cache. */
  readonly cachedInputTokens?: number;
  /** Part of `inputTokens` written to the prompt cache. */
  readonly cacheWriteTokens?: number;
  /** Part of `cacheWriteTokens` written for an hour (Anthropic's `ephemeral_1h_input_tokens`); the rest for five minutes. */
  readonly cacheWrite1hTokens?: number;
  /** Part of `inputTokens` that was audio (token-priced transcription models, audio chat models). */
  readonly audioInputTokens?: number;
  /** The whole output, reasoning included. */
  readonly outputTokens?: number;
  /** Part of `outputTokens` spent on reasoning. */
  readonly reasoningTokens?: number;
  /** Part of `outputTokens` that was audio (OpenAI's `completion_tokens_details.audio_tokens`). */
  readonly audioOutputTokens?: number;
  /** Images in the answer: what a per-image price is charged on. */
  readonly images?: number;
  /** Seconds of audio (minute-priced transcription models); may be fractional. */
  readonly audioSeconds?: number;
  /** Seconds of video generated. */
  readonly videoSeconds?: number;
  /** True when the provider reported no usage and the gateway counted what it received (DESIGN 6). */
  readonly counted?: boolean;
  /**
   * 1 when the request's text was masked (spec 1.5): charged the model's PII masking fee. Not a provider's
   * count: the gateway adds it to the worst case and to the usage it settles (`withPiiMasking`).
   */
  readonly piiMaskedRequests?: number;
}

export type Usage = UsageV2;

/** The fields of a usage without its version: what a provider reported, or the gateway counted. */
export type UsageFields = Omit<Usage, 'version'>;

const USAGE_FIELDS = [
  'inputTokens',
  'cachedInputTokens',
  'cacheWriteTokens',
  'cacheWrite1hTokens',
  'audioInputTokens',
  'outputTokens',
  'reasoningTokens',
  'audioOutputTokens',
  'images',
  'audioSeconds',
  'videoSeconds',
  'counted',
  'piiMaskedRequests',
] as const satisfies ReadonlyArray<keyof UsageFields>;

/**
 * A usage of the current version holding the fields given; an undefined field is left out (not reported),
 * so the result is plain JSON as the event store requires, and fields of other kinds are not copied.
 */
export function createUsage(fields: UsageFields = {}): Usage {
  const usage: Record<string, number | boolean> = { version: 2 };
  for (const field of USAGE_FIELDS) {
    const value = fields[field];
    if (value !== undefined) usage[field] = value;
  }
  // Every key set above is a field of UsageFields with its own type.
  return usage as unknown as Usage;
}

/** The usage of a masked request: what it used, and the masking it is charged for. */
export function withPiiMasking(usage: Usage): Usage {
  return { ...usage, piiMaskedRequests: 1 };
}

/**
 * The tokens of a usage that count against a key's tokens per minute: the input and the output (cached
 * and reasoning tokens are parts of those). The same count admits a request on its worst case and
 * corrects it to what it used.
 */
export function rateLimitedTokens(usage: Usage): number {
  return (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
}
