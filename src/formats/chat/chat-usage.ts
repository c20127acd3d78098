import { createUsage, type Usage } from '../../billing/usage.js';
import { isJsonObject, type JsonObject } from '../json-value.js';
import { reportedTokenCount } from '../reported-token-count.js';
import { cacheWriteSplitFrom, cacheWriteSplitShown, detailsOf, firstNonZeroCount, wholeOutput } from '../token-details.js';

/**
 * Chat `CompletionUsage` (wire-formats.md 1.3): `prompt_tokens` INCLUDES cached, cache-write and audio
 * tokens; `completion_tokens` includes reasoning and audio tokens. Cache writes have no OpenAI field:
 * OpenRouter says `prompt_tokens_details.cache_write_tokens`, LiteLLM-style servers
 * `prompt_tokens_details.cache_creation_tokens` or Anthropic's top-level `cache_creation_input_tokens` (7.3),
 * with the five-minute / one-hour split in `prompt_tokens_details.cache_creation_token_details`. The same
 * parser reads a JSON answer and a stream's usage chunk.
 */
export function usageFromChat(value: unknown): Usage | undefined {
  if (!isJsonObject(value)) return undefined;
  const prompt = detailsOf(value.prompt_tokens_details);
  const completion = detailsOf(value.completion_tokens_details);
  const split = cacheWriteSplitFrom(prompt.cache_creation_token_details);
  const inputTokens = reportedTokenCount(value.prompt_tokens);
  const reasoningTokens = reportedTokenCount(completion.reasoning_tokens);
  return createUsage({
    inputTokens,
    cachedInputTokens: firstNonZeroCount(prompt.cached_tokens, value.cache_read_input_tokens),
    cacheWriteTokens: firstNonZeroCount(prompt.cache_write_tokens, prompt.cache_creation_tokens, value.cache_creation_input_tokens) ?? split.total,
    cacheWrite1hTokens: split.oneHour,
    audioInputTokens: reportedTokenCount(prompt.audio_tokens),
    outputTokens: wholeOutput(inputTokens, reportedTokenCount(value.completion_tokens), reasoningTokens, reportedTokenCount(value.total_tokens)),
    reasoningTokens,
    audioOutputTokens: reportedTokenCount(completion.audio_tokens),
  });
}

/**
 * Chat clients always get the counts OpenAI always sends, 0 for one the provider did not report; the
 * others (cache writes and their split, audio) when there are some.
 */
export function usageToChat(value: Usage): JsonObject {
  const input = value.inputTokens ?? 0;
  const output = value.outputTokens ?? 0;
  const cacheWrite = value.cacheWriteTokens ?? 0;
  const promptDetails: JsonObject = { cached_tokens: value.cachedInputTokens ?? 0 };
  if (cacheWrite > 0) {
    promptDetails.cache_write_tokens = cacheWrite;
    promptDetails.cache_creation_token_details = cacheWriteSplitShown(value);
  }
  if ((value.audioInputTokens ?? 0) > 0) promptDetails.audio_tokens = value.audioInputTokens!;
  const completionDetails: JsonObject = { reasoning_tokens: value.reasoningTokens ?? 0 };
  if ((value.audioOutputTokens ?? 0) > 0) completionDetails.audio_tokens = value.audioOutputTokens!;
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: promptDetails,
    completion_tokens_details: completionDetails,
  };
}

/**
 * A provider's chat usage passed through to a chat client, in OpenAI's meaning: from a server that reports
 * reasoning beside `completion_tokens`, the completion is made the whole output, as it is charged (and as
 * the server's `total_tokens` already counts it); any other usage goes out as it came.
 */
export function chatUsageAsCharged(reported: JsonObject, usage: Usage): JsonObject {
  return usage.outputTokens !== undefined && reported.completion_tokens !== usage.outputTokens ? { ...reported, completion_tokens: usage.outputTokens } : reported;
}
