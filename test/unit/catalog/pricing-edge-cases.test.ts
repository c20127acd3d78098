import { expect } from 'chai';
import { createUsage } from '../../../src/billing/usage.js';
import { parseCatalog } from '../../../src/catalog/load-catalog.js';
import { costOfUsage } from '../../../src/catalog/pricing.js';
import { estimateInputTokens, outputCap } from '../../../src/catalog/reserve-estimate.js';

/**
 * Pricing and reserve estimates at their edges: provider counts that do not add up (more cached tokens
 * than input), fractions of a second, a model without some price, caps at and around the ceiling, and
 * input estimates of small bodies to the exact token. Expected amounts are literals worked out by hand.
 */
const catalog = parseCatalog(
  `providers:
  p: { kind: openai, base_url: "http://x/v1" }
models:
  - id: p/text
    category: text
    max_output_tokens: 1000
    pricing: { input_per_mtok: "3", output_per_mtok: "15", cached_input_per_mtok: "0.30", cache_write_per_mtok: "3.75" }
  - id: p/embed
    category: embeddings
    pricing: { input_per_mtok: "0.02" }
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

// p/text per token: input 3,000 n$, output 15,000 n$, cache read 300 n$, cache write 3,750 n$.
describe('pricing: counts that do not add up', () => {
  it('never counts more cached tokens than the input holds', () => {
    // 100 input reported as 150 cached: 100 cache reads × 300 n$ = 30,000 n$, nothing at the input rate.
    expect(costOfUsage(model('p/text').pricing, createUsage({ inputTokens: 100, cachedInputTokens: 150 }))).to.equal(30_000n);
  });

  it('never counts more cache writes than the input left after the cache reads', () => {
    // 100 input, 60 cached, 70 cache writes → 40 writes: 60 × 300 + 40 × 3,750 = 18,000 + 150,000 = 168,000 n$.
    expect(costOfUsage(model('p/text').pricing, createUsage({ inputTokens: 100, cachedInputTokens: 60, cacheWriteTokens: 70 }))).to.equal(168_000n);
  });

  it('charges cache writes without cache reads at their own rate, the rest at the input rate', () => {
    // 100 input of which 20 cache writes; 5 output: 80 × 3,000 + 20 × 3,750 + 5 × 15,000 = 240,000 + 75,000 + 75,000 = 390,000 n$.
    expect(costOfUsage(model('p/text').pricing, createUsage({ inputTokens: 100, cacheWriteTokens: 20, outputTokens: 5 }))).to.equal(390_000n);
  });

  it('charges nothing for a usage that reports nothing', () => {
    expect(costOfUsage(model('p/text').pricing, createUsage({}))).to.equal(0n);
    expect(costOfUsage(model('p/stt').pricing, createUsage({}))).to.equal(0n);
  });
});

describe('pricing: models without some prices', () => {
  it('charges an image model only per image, whatever tokens it reports', () => {
    // 2 images × $0.04 = 80,000,000 n$; the 1,000 input and 50 output tokens have no price here.
    expect(costOfUsage(model('p/img').pricing, createUsage({ images: 2, inputTokens: 1000, outputTokens: 50 }))).to.equal(80_000_000n);
  });

  it('charges an embeddings model its input only, and no images for a token model', () => {
    // 1,000 tokens × 20 n$ = 20,000 n$; output and images have no price on this model.
    expect(costOfUsage(model('p/embed').pricing, createUsage({ inputTokens: 1000, outputTokens: 9, images: 3 }))).to.equal(20_000n);
  });
});

describe('pricing: fractions of a second', () => {
  it('charges a started video second as a whole one', () => {
    // 4.25 s → 5 s × $0.10 = 500,000,000 n$
    expect(costOfUsage(model('p/vid').pricing, createUsage({ videoSeconds: 4.25 }))).to.equal(500_000_000n);
  });

  it('charges audio by the millisecond, a started millisecond as a whole one', () => {
    // 0.0625 s = 62.5 ms → 63 ms; $0.006 a minute = 6,000,000 n$ / 60,000 ms = 100 n$ a ms → 6,300 n$.
    expect(costOfUsage(model('p/stt').pricing, createUsage({ audioSeconds: 0.0625 }))).to.equal(6_300n);
    // 90.5 s = 90,500 ms × 100 n$ = 9,050,000 n$
    expect(costOfUsage(model('p/stt').pricing, createUsage({ audioSeconds: 90.5 }))).to.equal(9_050_000n);
  });
});

describe('reserve estimate: the output cap', () => {
  it('is the request cap up to the model ceiling, and the ceiling without one', () => {
    // p/text has a ceiling of 1,000 output tokens
    expect([0, 999, 1000, 1001, undefined].map((cap) => outputCap(model('p/text'), cap))).to.deep.equal([0, 999, 1000, 1000, 1000]);
  });

  it('reserves input × input price + cap × output price, and input only on a model without an output price', () => {
    const textReserve = (name: string, inputTokens: number, cap: number) =>
      costOfUsage(model(name).pricing, createUsage({ inputTokens, outputTokens: outputCap(model(name), cap) }));
    // 10 × 3,000 + 1 × 15,000 = 45,000 n$
    expect(textReserve('p/text', 10, 1)).to.equal(45_000n);
    // 1,000 × 20 n$ = 20,000 n$; the cap adds nothing without an output price
    expect(textReserve('p/embed', 1000, 500)).to.equal(20_000n);
  });
});

describe('reserve estimate: input tokens to the exact token', () => {
  // 'hello' is one o200k token; the margin makes 1 → 2. An object adds 4; an array adds nothing.
  it('counts an object, its strings with the margin, and nothing for arrays, numbers, booleans and null', () => {
    expect(estimateInputTokens({ input: 'hello' })).to.equal(6); // 4 + 2
    expect(estimateInputTokens(['hello', ['hello']])).to.equal(3); // 2 tokens × 5/4 = 2.5 → 3
    expect(estimateInputTokens({ n: 5, b: true, z: null, e: '' })).to.equal(4);
    expect(estimateInputTokens(null)).to.equal(0);
  });

  it('leaves out only the ignored keys it is given', () => {
    expect(estimateInputTokens({ model: 'hello', input: 'hello' })).to.equal(6); // model ignored by default
    expect(estimateInputTokens({ model: 'hello', input: 'hello' }, new Set(['input']))).to.equal(6);
    expect(estimateInputTokens({ model: 'hello', input: 'hello' }, new Set())).to.equal(7); // 4 + ceil(2 × 5/4)
  });

  it('counts a base64 run of 512 characters or a data: URL as one binary part, a shorter run as text', () => {
    expect(estimateInputTokens({ data: 'A'.repeat(512) })).to.equal(2_004);
    expect(estimateInputTokens({ url: 'data:,x' })).to.equal(2_004);
    expect(estimateInputTokens({ data: 'A'.repeat(511) })).to.be.lessThan(2_004);
  });
});
