import { createUsage, type Usage } from '../../billing/usage.js';
import { isJsonObject, type JsonObject } from '../json-value.js';
import { reportedTokenCount } from '../reported-token-count.js';
import { cacheWriteSplitFrom, cacheWriteSplitShown, detailsOf, firstNonZeroCount, wholeOutput } from '../token-details.js';

/**
 * `ResponseUsage` (wire-formats.md 3.2): `input_tokens` includes cached and cache-write tokens,
 * `output_tokens` includes reasoning; details may be absent on older servers. Audio counts and the split of
 * cache writes are read where a server adds them under the chat format's names. The same parser reads a
 * JSON answer and the usage of a stream's `response.completed`.
 */
export function usageFromResponses(value: unknown): Usage | undefined {
  if (!isJsonObject(value)) return undefined;
  const input = detailsOf(value.input_tokens_details);
  const output = detailsOf(value.output_tokens_details);
  const split = cacheWriteSplitFrom(input.cache_creation_token_details);
  const inputTokens = reportedTokenCount(value.input_tokens);
  const reasoningTokens = reportedTokenCount(output.reasoning_tokens);
  return createUsage({
    inputTokens,
    cachedInputTokens: reportedTokenCount(input.cached_tokens),
    cacheWriteTokens: firstNonZeroCount(input.cache_write_tokens, input.cache_creation_tokens) ?? split.total,
    cacheWrite1hTokens: split.oneHour,
    audioInputTokens: reportedTokenCount(input.audio_tokens),
    outputTokens: wholeOutput(inputTokens, reportedTokenCount(value.output_tokens), reasoningTokens, reportedTokenCount(value.total_tokens)),
    reasoningTokens,
    audioOutputTokens: reportedTokenCount(output.audio_tokens),
  });
}

/**
 * Responses clients always get the counts of the spec, 0 for one the provider did not report; the split of
 * cache writes and audio counts when there are some.
 */
export function usageToResponses(value: Usage): JsonObject {
  const input = value.inputTokens ?? 0;
  const output = value.outputTokens ?? 0;
  const inputDetails: JsonObject = { cached_tokens: value.cachedInputTokens ?? 0, cache_write_tokens: value.cacheWriteTokens ?? 0 };
  if ((value.cacheWriteTokens ?? 0) > 0) inputDetails.cache_creation_token_details = cacheWriteSplitShown(value);
  if ((value.audioInputTokens ?? 0) > 0) inputDetails.audio_tokens = value.audioInputTokens!;
  const outputDetails: JsonObject = { reasoning_tokens: value.reasoningTokens ?? 0 };
  if ((value.audioOutputTokens ?? 0) > 0) outputDetails.audio_tokens = value.audioOutputTokens!;
  return {
    input_tokens: input,
    input_tokens_details: inputDetails,
    output_tokens: output,
    output_tokens_details: outputDetails,
    total_tokens: input + output,
  };
}
