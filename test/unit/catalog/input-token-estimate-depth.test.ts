import { expect } from 'chai';
import { countTokens } from 'gpt-tokenizer';
import { estimateInputTokens, TOKENS_PER_BINARY_PART } from '../../../src/catalog/reserve-estimate.js';
import { FORMAT_NAMES } from '../../../src/formats/canonical/format-name.js';
import { clientRequest, REQUEST_SCENARIOS } from '../../support/format-fixtures/client-requests.js';
import { ANSWERS } from '../../support/format-fixtures/provider-answers.js';
import { providerResponse } from '../../../ops/provider-answers/provider-answers.js';
import { DEEP, deeplyNested } from '../../support/deep-json.js';

/** The recursive estimate the iterative one replaced, kept as the reference for what the answers must be. */
function recursiveEstimate(body: unknown, ignoredKeys?: ReadonlySet<string>): number {
  const ignored = ignoredKeys ?? new Set(['model', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'max_output_tokens', 'temperature', 'top_p', 'top_k', 'metadata', 'user', 'store', 'service_tier', 'cache_control']);
  let text = 0;
  let extra = 0;
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value.startsWith('data:') || /^[A-Za-z0-9+/=\r\n]{512,}$/.test(value)) extra += TOKENS_PER_BINARY_PART;
      else if (value.length > 0) text += countTokens(value, { disallowedSpecial: new Set() });
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (typeof value === 'object' && value !== null) {
      extra += 4;
      for (const [key, item] of Object.entries(value)) if (!ignored.has(key)) visit(item);
    }
  };
  visit(body);
  return Math.ceil((text * 5) / 4) + extra;
}

const SETTLEMENT_IGNORED = new Set(['id', 'model', 'object', 'type', 'role']);

describe('reserve estimate: bodies of any depth', () => {
  it('gives the same estimate as the recursive walk on every client request fixture', () => {
    for (const format of FORMAT_NAMES) {
      for (const scenario of REQUEST_SCENARIOS) {
        const body = clientRequest(format, scenario);
        expect(estimateInputTokens(body), `${format} ${scenario}`).to.equal(recursiveEstimate(body));
      }
    }
  });

  it('gives the same count as the recursive walk on every provider answer (usage counted at settlement)', () => {
    for (const format of FORMAT_NAMES) {
      for (const answer of ANSWERS) {
        const body = providerResponse(format, answer);
        expect(estimateInputTokens(body, SETTLEMENT_IGNORED), `${format} ${answer.name}`).to.equal(recursiveEstimate(body, SETTLEMENT_IGNORED));
      }
    }
  });

  it(`estimates a body nested ${DEEP.toLocaleString('en')} and 100,000 levels deep without throwing`, () => {
    const leafTokens = estimateInputTokens({ content: 'Hello there, how are you today?' }) - 4;
    for (const depth of [DEEP, 100_000]) {
      // deeplyNested alternates {"a": …} and […]: half the levels are objects, 4 tokens each.
      const body = { messages: deeplyNested(depth, 'Hello there, how are you today?') };
      expect(estimateInputTokens(body)).to.equal(4 + (depth / 2) * 4 + leafTokens);
    }
  });

  it('still skips ignored keys and counts binary parts deep down', () => {
    const body = deeplyNested(DEEP, { model: 'not counted', url: `data:image/png;base64,${'A'.repeat(1000)}` });
    expect(estimateInputTokens(body)).to.equal((DEEP / 2) * 4 + 4 + TOKENS_PER_BINARY_PART);
  });
});
