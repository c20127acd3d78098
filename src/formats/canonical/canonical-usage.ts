/**
 * Token usage of one model call, in one meaning for every format (the formats disagree: chat `prompt_tokens`
 * includes cached tokens, Anthropic `input_tokens` excludes them; wire-formats.md 1.3, 2.2, 3.2, 7.3, 7.4).
 * Versioned like vercel/ai's `LanguageModelV2Usage`: settlement reads it, so a change of meaning is a new
 * version, never a silent edit.
 */
export interface UsageV1 {
  readonly version: 1;
  /** The whole input: uncached + cache read + cache write. */
  readonly inputTokens: number;
  /** Part of `inputTokens` read from the prompt cache. */
  readonly cachedInputTokens: number;
  /** Part of `inputTokens` written to the prompt cache. */
  readonly cacheWriteTokens: number;
  /** The whole output, reasoning included. */
  readonly outputTokens: number;
  /** Part of `outputTokens` spent on reasoning (0 when the provider does not say). */
  readonly reasoningTokens: number;
}

export type Usage = UsageV1;

export function usage(fields: Partial<Omit<UsageV1, 'version'>> = {}): Usage {
  return {
    version: 1,
    inputTokens: fields.inputTokens ?? 0,
    cachedInputTokens: fields.cachedInputTokens ?? 0,
    cacheWriteTokens: fields.cacheWriteTokens ?? 0,
    outputTokens: fields.outputTokens ?? 0,
    reasoningTokens: fields.reasoningTokens ?? 0,
  };
}

export function totalTokens(value: Usage): number {
  return value.inputTokens + value.outputTokens;
}

/** A provider number that may be absent, null or (on a broken provider) not a number. */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}
