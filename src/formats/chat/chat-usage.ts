import { isJsonObject, type JsonObject } from '../json-value.js';
import { tokenCount, usage, type Usage } from '../canonical/canonical-usage.js';

/**
 * Chat `CompletionUsage` (wire-formats.md 1.3): `prompt_tokens` INCLUDES cached tokens; `cache_write_tokens`
 * is OpenRouter's extension, and LiteLLM-style servers put Anthropic's `cache_creation_input_tokens` at the
 * top level (7.3).
 */
export function usageFromChat(value: unknown): Usage | undefined {
  if (!isJsonObject(value)) return undefined;
  const prompt = isJsonObject(value.prompt_tokens_details) ? value.prompt_tokens_details : {};
  const completion = isJsonObject(value.completion_tokens_details) ? value.completion_tokens_details : {};
  return usage({
    inputTokens: tokenCount(value.prompt_tokens),
    cachedInputTokens: tokenCount(prompt.cached_tokens),
    cacheWriteTokens: tokenCount(prompt.cache_write_tokens) || tokenCount(value.cache_creation_input_tokens),
    outputTokens: tokenCount(value.completion_tokens),
    reasoningTokens: tokenCount(completion.reasoning_tokens),
  });
}

export function usageToChat(value: Usage): JsonObject {
  const promptDetails: JsonObject = { cached_tokens: value.cachedInputTokens };
  if (value.cacheWriteTokens > 0) promptDetails.cache_write_tokens = value.cacheWriteTokens;
  return {
    prompt_tokens: value.inputTokens,
    completion_tokens: value.outputTokens,
    total_tokens: value.inputTokens + value.outputTokens,
    prompt_tokens_details: promptDetails,
    completion_tokens_details: { reasoning_tokens: value.reasoningTokens },
  };
}
