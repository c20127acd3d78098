import { CostAccumulator, type Nanodollars } from '../billing/money.js';
import { withTokenizerMargin } from '../billing/reserve-margin.js';
import { countTokens } from '../billing/token-count.js';
import type { CatalogModel } from './catalog.js';

/**
 * How much to reserve before a text request runs (spec 8, DESIGN.md section 6):
 * input cost (an upper bound of the input tokens) + output cap × output price, where the cap is the
 * request's own (`max_tokens`, `max_completion_tokens`, `max_output_tokens`) or, when it sets none, the
 * model's response ceiling. A cap above the ceiling reserves the ceiling: the model cannot answer more.
 */
export function textReserve(model: CatalogModel, inputTokens: number, requestedOutputCap: number | undefined): Nanodollars {
  return new CostAccumulator()
    .addPerMillion(inputTokens, model.pricing.inputPerMillion ?? 0n)
    .addPerMillion(outputCap(model, requestedOutputCap), model.pricing.outputPerMillion ?? 0n)
    .total();
}

/** The most output a request can get: its own cap, never above the model's response ceiling. */
export function outputCap(model: CatalogModel, requestedOutputCap: number | undefined): number {
  return Math.min(requestedOutputCap ?? model.maxOutputTokens, model.maxOutputTokens);
}

// Tokenizers differ between vendors, so the count gets the tokenizer margin (billing/reserve-margin.ts)
// and every object pays a little structure overhead. Base64 payloads (images, audio, files) are not text:
// each one is counted as a fixed allowance, the most an image costs on the catalog's vision models,
// instead of tokenizing megabytes of base64.
const TOKENS_PER_OBJECT = 4;
export const TOKENS_PER_BINARY_PART = 2_000;
const BASE64_RUN = /^[A-Za-z0-9+/=\r\n]{512,}$/;

/**
 * An upper bound of the input tokens of a parsed request body (any of the three formats): every string
 * in it is counted except the fields listed in `ignoredKeys` (model name, flags). Works on the parsed
 * JSON as sent, so the estimate costs no translation. The walk keeps its own stack of the containers on
 * the current path: a client body may nest deeper than the call stack goes.
 */
export function estimateInputTokens(body: unknown, ignoredKeys: ReadonlySet<string> = DEFAULT_IGNORED_KEYS): number {
  let text = 0;
  let extra = 0;
  const path: Array<{ readonly items: readonly unknown[]; next: number }> = [];
  let value = body;
  for (;;) {
    if (typeof value === 'string') {
      if (value.startsWith('data:') || BASE64_RUN.test(value)) extra += TOKENS_PER_BINARY_PART;
      else if (value.length > 0) text += countTokens(value);
    } else if (Array.isArray(value)) {
      path.push({ items: value, next: 0 });
    } else if (typeof value === 'object' && value !== null) {
      extra += TOKENS_PER_OBJECT;
      const items: unknown[] = [];
      for (const [key, item] of Object.entries(value)) if (!ignoredKeys.has(key)) items.push(item);
      path.push({ items, next: 0 });
    }
    let top = path.at(-1);
    while (top !== undefined && top.next >= top.items.length) {
      path.pop();
      top = path.at(-1);
    }
    if (top === undefined) break;
    value = top.items[top.next++];
  }
  return withTokenizerMargin(text) + extra;
}

const DEFAULT_IGNORED_KEYS: ReadonlySet<string> = new Set([
  'model',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'max_output_tokens',
  'temperature',
  'top_p',
  'top_k',
  'metadata',
  'user',
  'store',
  'service_tier',
  'cache_control',
]);
