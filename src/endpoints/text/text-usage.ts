import type { Usage } from '../../formats/canonical/canonical-usage.js';
import { estimateInputTokens } from '../../catalog/reserve-estimate.js';
import type { UsageRecord } from '../../ledger/account-events.js';

/** The format layer's usage as the ledger records it. */
export function usageRecord(usage: Usage): UsageRecord {
  return {
    inputTokens: usage.inputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    cacheWriteTokens: usage.cacheWriteTokens,
    outputTokens: usage.outputTokens,
    reasoningTokens: usage.reasoningTokens,
  };
}

/**
 * The provider reported no usage (peer-pitfalls: spend recorded as zero): count it. The input is the
 * reserve's upper bound; the output is every string of the answer, tokenized with the same margin.
 */
export function countedResponseUsage(inputTokens: number, responseBody: unknown): UsageRecord {
  return { inputTokens, outputTokens: estimateInputTokens(responseBody, new Set(['id', 'model', 'object', 'type', 'role'])), counted: true };
}
