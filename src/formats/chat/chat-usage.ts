import { createUsage, type Usage } from '../../billing/usage.js';
import { isJsonObject, type JsonObject } from '../json-value.js';
import { reportedTokenCount } from '../reported-token-count.js';

/**
 * Chat `CompletionUsage` (wire-formats.md 1.3): `prompt_tokens` INCLUDES cached tokens; `cache_write_tokens`
 * is OpenRouter's extension, and LiteLLM-style servers put Anthropic's `cache_creation_input_tokens` at the
 * top level (7.3).
 */
export function usageFromChat(value: unknown): Usage | undefined {
  if (!isJsonObject(value)) return undefined;
  const prompt = isJsonObject(value.prompt_tokens_details) ? value.prompt_tokens_details : {};
  const completion = isJsonObject(value.completion_tokens_details) ? value.completion_tokens_details : {};
  const cacheWrite = reportedTokenCount(prompt.cache_write_tokens);
  return createUsage({
    inputTokens: reportedTokenCount(value.prompt_tokens),
    cachedInputTokens: reportedTokenCount(prompt.cached_tokens),
    // a zero in OpenRouter's field does not hide a count in the LiteLLM one
    cacheWriteTokens: cacheWrite || (reportedTokenCount(value.cache_creation_input_tokens) ?? cacheWrite),
    outputTokens: reportedTokenCount(value.completion_tokens),
    reasoningTokens: reportedTokenCount(completion.reasoning_tokens),
  });
}

/** Chat clients always get every count; one the provider did not report is shown as 0. */
export function usageToChat(value: Usage): JsonObject {
  const input = value.inputTokens ?? 0;
  const output = value.outputTokens ?? 0;
  const cacheWrite = value.cacheWriteTokens ?? 0;
  const promptDetails: JsonObject = { cached_tokens: value.cachedInputTokens ?? 0 };
  if (cacheWrite > 0) promptDetails.cache_write_tokens = cacheWrite;
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: promptDetails,
    completion_tokens_details: { reasoning_tokens: value.reasoningTokens ?? 0 },
  };
}
