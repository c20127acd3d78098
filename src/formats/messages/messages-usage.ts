import { createUsage, type Usage } from '../../billing/usage.js';
import { isJsonObject, type JsonObject } from '../json-value.js';
import { sumOfReportedCounts, reportedTokenCount } from '../reported-token-count.js';

/**
 * Anthropic usage (wire-formats.md 2.2): `input_tokens` EXCLUDES cache reads and writes — "total input
 * tokens is the summation of input_tokens, cache_creation_input_tokens and cache_read_input_tokens".
 */
export function usageFromMessages(value: unknown): Usage | undefined {
  if (!isJsonObject(value)) return undefined;
  const cacheRead = reportedTokenCount(value.cache_read_input_tokens);
  const cacheWrite = reportedTokenCount(value.cache_creation_input_tokens);
  const details = isJsonObject(value.output_tokens_details) ? value.output_tokens_details : {};
  return createUsage({
    inputTokens: sumOfReportedCounts(reportedTokenCount(value.input_tokens), cacheRead, cacheWrite),
    cachedInputTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    outputTokens: reportedTokenCount(value.output_tokens),
    reasoningTokens: reportedTokenCount(details.thinking_tokens),
  });
}

/**
 * The gateway's messages usage: spec 2.2 makes `input_tokens` the WHOLE input, cache included — unlike
 * Anthropic's own meaning. The cache fields keep Anthropic's names as sub-counts. Every count is shown;
 * one the provider did not report is shown as 0.
 */
export function usageToMessages(value: Usage): JsonObject {
  return {
    input_tokens: value.inputTokens ?? 0,
    cache_creation_input_tokens: value.cacheWriteTokens ?? 0,
    cache_read_input_tokens: value.cachedInputTokens ?? 0,
    output_tokens: value.outputTokens ?? 0,
  };
}
