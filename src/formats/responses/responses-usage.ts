import { isJsonObject, type JsonObject } from '../json-value.js';
import { tokenCount, usage, type Usage } from '../canonical/canonical-usage.js';

/** `ResponseUsage` (wire-formats.md 3.2): `input_tokens` includes cached; details may be absent on older servers. */
export function usageFromResponses(value: unknown): Usage | undefined {
  if (!isJsonObject(value)) return undefined;
  const input = isJsonObject(value.input_tokens_details) ? value.input_tokens_details : {};
  const output = isJsonObject(value.output_tokens_details) ? value.output_tokens_details : {};
  return usage({
    inputTokens: tokenCount(value.input_tokens),
    cachedInputTokens: tokenCount(input.cached_tokens),
    cacheWriteTokens: tokenCount(input.cache_write_tokens),
    outputTokens: tokenCount(value.output_tokens),
    reasoningTokens: tokenCount(output.reasoning_tokens),
  });
}

export function usageToResponses(value: Usage): JsonObject {
  return {
    input_tokens: value.inputTokens,
    input_tokens_details: { cached_tokens: value.cachedInputTokens, cache_write_tokens: value.cacheWriteTokens },
    output_tokens: value.outputTokens,
    output_tokens_details: { reasoning_tokens: value.reasoningTokens },
    total_tokens: value.inputTokens + value.outputTokens,
  };
}
