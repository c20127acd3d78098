import { createUsage, type Usage } from '../../billing/usage.js';
import { isJsonObject, type JsonObject } from '../json-value.js';
import { sumOfReportedCounts, reportedTokenCount } from '../reported-token-count.js';
import { cacheWriteSplitFrom, cacheWriteSplitShown, detailsOf } from '../token-details.js';

/**
 * Anthropic usage (wire-formats.md 2.2): `input_tokens` EXCLUDES cache reads and writes — "total input
 * tokens is the summation of input_tokens, cache_creation_input_tokens and cache_read_input_tokens".
 * `cache_creation` splits the writes into five-minute and one-hour ones (priced apart); `output_tokens`
 * includes the thinking tokens of `output_tokens_details`. In a stream the caller merges `message_start`'s
 * usage with `message_delta`'s (cumulative, the later value winning) and reads the merge here.
 */
export function usageFromMessages(value: unknown): Usage | undefined {
  if (!isJsonObject(value)) return undefined;
  const cacheRead = reportedTokenCount(value.cache_read_input_tokens);
  const split = cacheWriteSplitFrom(value.cache_creation);
  const cacheWrite = reportedTokenCount(value.cache_creation_input_tokens) ?? split.total;
  const details = detailsOf(value.output_tokens_details);
  return createUsage({
    inputTokens: sumOfReportedCounts(reportedTokenCount(value.input_tokens), cacheRead, cacheWrite),
    cachedInputTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    cacheWrite1hTokens: split.oneHour,
    outputTokens: reportedTokenCount(value.output_tokens),
    reasoningTokens: reportedTokenCount(details.thinking_tokens),
  });
}

/**
 * The gateway's messages usage: spec 2.2 makes `input_tokens` the WHOLE input, cache included — unlike
 * Anthropic's own meaning. The cache fields keep Anthropic's names as sub-counts, with the split of the
 * writes (`cache_creation`) when there are some, and the thinking tokens when there are some. Every count
 * Anthropic always sends is shown; one the provider did not report is shown as 0.
 */
export function usageToMessages(value: Usage): JsonObject {
  const usage: JsonObject = {
    input_tokens: value.inputTokens ?? 0,
    cache_creation_input_tokens: value.cacheWriteTokens ?? 0,
    cache_read_input_tokens: value.cachedInputTokens ?? 0,
  };
  if ((value.cacheWriteTokens ?? 0) > 0) usage.cache_creation = cacheWriteSplitShown(value);
  usage.output_tokens = value.outputTokens ?? 0;
  if ((value.reasoningTokens ?? 0) > 0) usage.output_tokens_details = { thinking_tokens: value.reasoningTokens! };
  return usage;
}
