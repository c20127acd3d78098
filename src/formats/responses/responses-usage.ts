import { createUsage, type Usage } from '../../billing/usage.js';
import { isJsonObject, type JsonObject } from '../json-value.js';
import { reportedTokenCount } from '../reported-token-count.js';

/** `ResponseUsage` (wire-formats.md 3.2): `input_tokens` includes cached; details may be absent on older servers. */
export function usageFromResponses(value: unknown): Usage | undefined {
  if (!isJsonObject(value)) return undefined;
  const input = isJsonObject(value.input_tokens_details) ? value.input_tokens_details : {};
  const output = isJsonObject(value.output_tokens_details) ? value.output_tokens_details : {};
  return createUsage({
    inputTokens: reportedTokenCount(value.input_tokens),
    cachedInputTokens: reportedTokenCount(input.cached_tokens),
    cacheWriteTokens: reportedTokenCount(input.cache_write_tokens),
    outputTokens: reportedTokenCount(value.output_tokens),
    reasoningTokens: reportedTokenCount(output.reasoning_tokens),
  });
}

/** Responses clients always get every count; one the provider did not report is shown as 0. */
export function usageToResponses(value: Usage): JsonObject {
  const input = value.inputTokens ?? 0;
  const output = value.outputTokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: value.cachedInputTokens ?? 0, cache_write_tokens: value.cacheWriteTokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: value.reasoningTokens ?? 0 },
    total_tokens: input + output,
  };
}
