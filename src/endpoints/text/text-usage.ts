import { createUsage, type Usage } from '../../billing/usage.js';
import { estimateInputTokens } from '../../catalog/reserve-estimate.js';

/**
 * The provider reported no usage (peer-pitfalls: spend recorded as zero): count it. The input is the
 * reserve's upper bound; the output is every string of the answer, tokenized with the same margin.
 */
export function countedResponseUsage(inputTokens: number, responseBody: unknown): Usage {
  return createUsage({ inputTokens, outputTokens: estimateInputTokens(responseBody, new Set(['id', 'model', 'object', 'type', 'role'])), counted: true });
}
