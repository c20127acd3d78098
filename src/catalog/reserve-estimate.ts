import { withTokenizerMargin } from '../billing/reserve-margin.js';
import { countTokens } from '../billing/o200k-token-counter.js';
import type { CatalogModel } from './catalog.js';

/**
 * The most output one answer (one choice) of a text request can have (spec 8, DESIGN.md section 6): the
 * request's own cap (`max_tokens`, `max_completion_tokens`, `max_output_tokens`) or, when it sets none, the
 * model's response ceiling. A cap above the ceiling counts the ceiling: the model cannot answer more.
 */
export function outputCap(model: CatalogModel, requestedOutputCap: number | undefined): number {
  return Math.min(requestedOutputCap ?? model.maxOutputTokens, model.maxOutputTokens);
}

/** An upper bound of the tokens a provider counts in a prompt: the gateway's count with the tokenizer margin. */
export function promptTokensBound(text: string): number {
  return withTokenizerMargin(countTokens(text));
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
