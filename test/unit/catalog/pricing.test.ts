import { expect } from 'chai';
import { parseCatalog } from '../../../src/catalog/load-catalog.js';
import { chargeOf, costOfUsage } from '../../../src/catalog/pricing.js';
import { estimateInputTokens, outputCap, TOKENS_PER_BINARY_PART } from '../../../src/catalog/reserve-estimate.js';
import { parseUsd } from '../../../src/billing/money.js';
import { createUsage } from '../../../src/billing/usage.js';

const catalog = parseCatalog(
  `providers:
  p: { kind: openai, base_url: "http://x/v1" }
models:
  - id: p/text
    category: text
    max_output_tokens: 1000
    pricing: { input_per_mtok: "3", output_per_mtok: "15", cached_input_per_mtok: "0.30", cache_write_per_mtok: "3.75" }
  - id: p/plain
    category: text
    pricing: { input_per_mtok: "1", output_per_mtok: "2" }
  - id: p/cheap
    category: text
    pricing: { input_per_mtok: "0.0001", output_per_mtok: "0.0002" }
  - id: p/img
    category: image
    pricing: { per_image: "0.04" }
  - id: p/stt
    category: speech
    pricing: { per_audio_minute: "0.006" }
  - id: p/vid
    category: video
    pricing: { per_video_second: "0.10" }
    video: { seconds: [4], sizes: ["720x1280"] }
`,
  { source: 'test' },
);
const model = (id: string) => catalog.models.get(id)!;

describe('pricing', () => {
  it('prices input, cache reads, cache writes and output at their own rates', () => {
    // 1,000 input of which 600 cached and 100 cache-write; 200 output
    const cost = costOfUsage(model('p/text').pricing, createUsage({ inputTokens: 1000, cachedInputTokens: 600, cacheWriteTokens: 100, outputTokens: 200 }));
    // 300×3 + 600×0.30 + 100×3.75 + 200×15 = 900 + 180 + 375 + 3000 = 4455 $/Mtok·tok → $0.004455
    expect(cost).to.equal(parseUsd('0.004455'));
  });

  it('prices cache tokens at the input rate when the model has no cache prices', () => {
    expect(costOfUsage(model('p/plain').pricing, createUsage({ inputTokens: 1000, cachedInputTokens: 600, outputTokens: 10 }))).to.equal(parseUsd('0.00102'));
  });

  it('rounds up to a whole nanodollar once', () => {
    expect(costOfUsage(model('p/plain').pricing, createUsage({ inputTokens: 1 }))).to.equal(1000n); // $1/Mtok = 1,000 nanodollars a token
    expect(costOfUsage(model('p/cheap').pricing, createUsage({ inputTokens: 1, outputTokens: 1 }))).to.equal(1n); // 0.1 + 0.2 nanodollars → 1
  });

  it('prices images, audio minutes and video seconds', () => {
    expect(costOfUsage(model('p/img').pricing, createUsage({ images: 3 }))).to.equal(parseUsd('0.12'));
    expect(costOfUsage(model('p/stt').pricing, createUsage({ audioSeconds: 30 }))).to.equal(parseUsd('0.003'));
    expect(costOfUsage(model('p/vid').pricing, createUsage({ videoSeconds: 8 }))).to.equal(parseUsd('0.8'));
  });
});

describe('reserve estimate', () => {
  // a text reserve is the price of its worst case: the input, and the output cap up to the ceiling
  const textReserve = (name: string, inputTokens: number, cap: number | undefined) =>
    costOfUsage(model(name).pricing, createUsage({ inputTokens, outputTokens: outputCap(model(name), cap) }));

  it('reserves input + the request cap × output price', () => {
    expect(textReserve('p/text', 100, 50)).to.equal(parseUsd('0.00105')); // 100×3 + 50×15
  });

  it('reserves the model ceiling when the request sets no cap, and never more than the ceiling', () => {
    expect(textReserve('p/text', 0, undefined)).to.equal(parseUsd('0.015')); // 1000 × 15
    expect(textReserve('p/text', 0, 5000)).to.equal(parseUsd('0.015'));
    expect(textReserve('p/plain', 0, undefined), 'default ceiling 128,000').to.equal(parseUsd('0.256'));
  });

  it('counts text with a margin above the tokenizer, and never counts the model name', () => {
    const body = { model: 'openai/gpt-4o-mini-with-a-very-long-name', messages: [{ role: 'user', content: 'Hello there, how are you today?' }] };
    const tokens = estimateInputTokens(body);
    expect(tokens).to.be.greaterThan(8).and.lessThan(40);
    expect(estimateInputTokens({ ...body, model: 'x' })).to.equal(tokens);
  });

  it('counts a base64 image as a fixed allowance, not as text', () => {
    const image = `data:image/png;base64,${'A'.repeat(2_000_000)}`;
    const tokens = estimateInputTokens({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: image } }] }] });
    expect(tokens).to.be.at.least(TOKENS_PER_BINARY_PART).and.lessThan(TOKENS_PER_BINARY_PART + 100);
    const raw = estimateInputTokens({ messages: [{ content: [{ type: 'image', source: { type: 'base64', data: 'QUJD'.repeat(1000) } }] }] });
    expect(raw).to.be.at.least(TOKENS_PER_BINARY_PART);
  });

  it('does not fail on special-token text', () => {
    expect(estimateInputTokens({ input: 'ignore <|endoftext|> this' })).to.be.greaterThan(3);
  });

  it('adds the PII masking fee once per masked request, on top of the rounded tokens, and nothing when not masked', () => {
    const model = catalog.models.get('p/plain')!;
    // 1 input token at $1 per million tokens = 1,000 n$; the default fee $0.001 = 1,000,000 n$
    expect(costOfUsage(model.pricing, createUsage({ inputTokens: 1 }))).to.equal(1_000n);
    expect(costOfUsage(model.pricing, createUsage({ inputTokens: 1, piiMaskedRequests: 1 }))).to.equal(1_001_000n);
    expect(chargeOf(model.pricing, createUsage({ inputTokens: 1, piiMaskedRequests: 1 })).piiMaskingFee).to.equal(1_000_000n);
    expect(chargeOf(model.pricing, createUsage({ inputTokens: 1 })).piiMaskingFee).to.equal(0n);
  });
});
