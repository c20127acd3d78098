import type { Usage } from '../billing/usage.js';
import { isJsonObject, type JsonObject, type JsonValue } from './json-value.js';
import { reportedTokenCount, sumOfReportedCounts } from './reported-token-count.js';

/**
 * What the three usage codecs share about the token kinds inside the input and the output: where a count
 * may hide when providers disagree on field names, the split of cache writes by how long they are kept, and
 * the two conventions for reasoning tokens.
 */

/** A nested details object, or an empty one when the provider sent none (or null). */
export function detailsOf(value: JsonValue | undefined): JsonObject {
  return isJsonObject(value) ? value : {};
}

/**
 * The first count that is not 0 among fields that mean the same thing under different names (OpenRouter,
 * LiteLLM, the spec), else a reported 0, else undefined: a 0 in one field does not hide a count in another.
 */
export function firstNonZeroCount(...values: ReadonlyArray<JsonValue | undefined>): number | undefined {
  let zero: number | undefined;
  for (const value of values) {
    const count = reportedTokenCount(value);
    if (count === undefined) continue;
    if (count > 0) return count;
    zero = count;
  }
  return zero;
}

export interface CacheWriteSplit {
  /** The whole of the split: undefined when neither part was reported. */
  readonly total: number | undefined;
  /** Written for an hour: undefined when not reported. */
  readonly oneHour: number | undefined;
}

/**
 * Cache writes by how long they are kept: Anthropic's `cache_creation {ephemeral_5m_input_tokens,
 * ephemeral_1h_input_tokens}` (wire-formats.md 2.2), which LiteLLM-style chat servers repeat as
 * `prompt_tokens_details.cache_creation_token_details`. A one-hour write costs more than a five-minute one
 * (peer-pitfalls.md: priced at one rate where the provider has two).
 */
export function cacheWriteSplitFrom(value: JsonValue | undefined): CacheWriteSplit {
  const split = detailsOf(value);
  const fiveMinutes = reportedTokenCount(split.ephemeral_5m_input_tokens);
  const oneHour = reportedTokenCount(split.ephemeral_1h_input_tokens);
  return { total: sumOfReportedCounts(fiveMinutes, oneHour), oneHour };
}

/**
 * The split a client is shown, in Anthropic's names: what the gateway charged at each rate. Writes whose
 * duration the provider did not say are charged (and shown) as five-minute writes, the rate and the
 * default duration they fall back to.
 */
export function cacheWriteSplitShown(usage: Usage): JsonObject {
  const writes = usage.cacheWriteTokens ?? 0;
  const oneHour = Math.min(usage.cacheWrite1hTokens ?? 0, writes);
  return { ephemeral_5m_input_tokens: writes - oneHour, ephemeral_1h_input_tokens: oneHour };
}

/**
 * The whole output of a provider that reports reasoning tokens. OpenAI counts them inside
 * `completion_tokens` / `output_tokens` (a breakdown, never to be added again); some OpenAI-style servers
 * count them beside it (peer-pitfalls.md: agentgateway #3228, llmgateway #3486). Those are told apart by
 * what cannot happen inside: more reasoning than output, or a total that adds the reasoning on top of the
 * input and the output.
 */
export function wholeOutput(input: number | undefined, output: number | undefined, reasoning: number | undefined, total: number | undefined): number | undefined {
  if (output === undefined || reasoning === undefined || reasoning === 0) return output;
  const beside = reasoning > output || (input !== undefined && total !== undefined && total === input + output + reasoning);
  return beside ? output + reasoning : output;
}
