import { expect } from 'chai';
import { CostAccumulator } from '../../../src/billing/money.js';
import { createUsage } from '../../../src/billing/usage.js';
import { parseCatalog } from '../../../src/catalog/load-catalog.js';
import { chargeOf, pricingForTier, worstCaseCharge } from '../../../src/catalog/pricing.js';

const catalog = parseCatalog(
  `providers:
  p: { kind: openai, base_url: "http://x/v1" }
models:
  - id: p/every-rate
    category: text
    pricing:
      input_per_mtok: "3"
      output_per_mtok: "15"
      cached_input_per_mtok: "0.30"
      cache_write_per_mtok: "3.75"
      cache_write_1h_per_mtok: "6"
      audio_input_per_mtok: "40"
      audio_output_per_mtok: "80"
      service_tiers:
        priority: { input_per_mtok: "6", output_per_mtok: "30" }
        flex: { input_per_mtok: "1.5", output_per_mtok: "7.5", cached_input_per_mtok: "0.15" }
  - id: p/two-rates
    category: text
    pricing: { input_per_mtok: "2", output_per_mtok: "8" }
  - id: p/five-minute-writes
    category: text
    pricing: { input_per_mtok: "3", output_per_mtok: "15", cache_write_per_mtok: "3.75" }
`,
  { source: 'test' },
);
const pricing = (id: string) => catalog.models.get(id)!.pricing;

describe('pricing: every kind of token at its own rate', () => {
  it('prices cache reads, five-minute and one-hour cache writes and audio each at its rate, and splits the charge by kind', () => {
    // input 10,000 = 2,000 plain + 3,000 cache reads + 4,000 cache writes (1,000 for an hour) + 1,000 audio
    //   plain 2,000 × $3 = 6,000,000 n$; reads 3,000 × $0.30 = 900,000; writes 3,000 × $3.75 = 11,250,000
    //   + 1,000 × $6 = 6,000,000; audio 1,000 × $40 = 40,000,000
    // output 5,000 = 3,000 plain + 1,500 reasoning + 500 audio
    //   plain 3,000 × $15 = 45,000,000; reasoning 1,500 × $15 = 22,500,000; audio 500 × $80 = 40,000,000
    // total 171,650,000 n$
    const usage = createUsage({
      inputTokens: 10_000,
      cachedInputTokens: 3_000,
      cacheWriteTokens: 4_000,
      cacheWrite1hTokens: 1_000,
      audioInputTokens: 1_000,
      outputTokens: 5_000,
      reasoningTokens: 1_500,
      audioOutputTokens: 500,
    });
    const charge = chargeOf(pricing('p/every-rate'), usage);
    expect(charge.cost).to.equal(171_650_000n);
    expect(charge.costByKind).to.deep.equal({
      input: 6_000_000n,
      cachedInput: 900_000n,
      cacheWrite: 17_250_000n,
      output: 45_000_000n,
      reasoning: 22_500_000n,
      audio: 80_000_000n,
    });
  });

  it('counts reasoning inside the output once, never on top of it', () => {
    // 1,000 output of which 400 reasoning: 1,000 × $8 = 8,000,000 n$, not 1,400 × $8
    expect(chargeOf(pricing('p/two-rates'), createUsage({ outputTokens: 1_000, reasoningTokens: 400 })).cost).to.equal(8_000_000n);
  });

  it('falls back, never to free: reads and writes at the input rate, hour writes at the five-minute rate, audio at the text rate', () => {
    // p/two-rates has input $2 and output $8 only: every input token at $2, every output token at $8
    // input 1,000 × $2 = 2,000,000 n$; output 100 × $8 = 800,000 n$
    const usage = createUsage({ inputTokens: 1_000, cachedInputTokens: 300, cacheWriteTokens: 300, cacheWrite1hTokens: 100, audioInputTokens: 200, outputTokens: 100, audioOutputTokens: 50 });
    expect(chargeOf(pricing('p/two-rates'), usage).cost).to.equal(2_800_000n);
    // p/five-minute-writes: 1,000 one-hour writes at the five-minute rate $3.75 = 3,750,000 n$
    expect(chargeOf(pricing('p/five-minute-writes'), createUsage({ inputTokens: 1_000, cacheWriteTokens: 1_000, cacheWrite1hTokens: 1_000 })).cost).to.equal(3_750_000n);
  });

  it('never counts a part beyond its whole (a provider reporting more cache reads than input)', () => {
    // cached 2,000 of 1,000 input: 1,000 reads at $0.30 = 300,000 n$, nothing plain; 1h writes capped by writes (0)
    expect(chargeOf(pricing('p/every-rate'), createUsage({ inputTokens: 1_000, cachedInputTokens: 2_000, cacheWrite1hTokens: 50 })).cost).to.equal(300_000n);
  });

  it('prices a service tier at its own rates, each rate it leaves out at the standard one', () => {
    const usage = createUsage({ inputTokens: 1_000, cachedInputTokens: 200, outputTokens: 100 });
    // standard: 800 × $3 + 200 × $0.30 + 100 × $15 = 2,400,000 + 60,000 + 1,500,000 = 3,960,000 n$
    expect(chargeOf(pricingForTier(pricing('p/every-rate'), undefined)!, usage).cost).to.equal(3_960_000n);
    expect(chargeOf(pricingForTier(pricing('p/every-rate'), 'default')!, usage).cost).to.equal(3_960_000n);
    // priority: 800 × $6 + 200 × $0.30 (not listed: standard) + 100 × $30 = 4,800,000 + 60,000 + 3,000,000 = 7,860,000
    expect(chargeOf(pricingForTier(pricing('p/every-rate'), 'priority')!, usage).cost).to.equal(7_860_000n);
    // flex: 800 × $1.5 + 200 × $0.15 + 100 × $7.5 = 1,200,000 + 30,000 + 750,000 = 1,980,000
    expect(chargeOf(pricingForTier(pricing('p/every-rate'), 'flex')!, usage).cost).to.equal(1_980_000n);
    expect(pricingForTier(pricing('p/every-rate'), 'scale')).to.equal(undefined);
    expect(pricingForTier(pricing('p/two-rates'), 'priority')).to.equal(undefined);
  });

  it('refuses a catalog with service tiers on a model that is not text, or a tier named auto', () => {
    const entry = (pricingYaml: string, category = 'text') =>
      `providers:\n  p: { kind: openai, base_url: "http://x/v1" }\nmodels:\n  - id: p/m\n    category: ${category}\n    pricing: ${pricingYaml}\n`;
    expect(() => parseCatalog(entry('{ per_image: "0.04", service_tiers: { flex: { per_image: "0.02" } } }', 'image'), { source: 't' })).to.throw(/only a text model has service tiers/);
    expect(() => parseCatalog(entry('{ input_per_mtok: "1", output_per_mtok: "1", service_tiers: { auto: { input_per_mtok: "2" } } }'), { source: 't' })).to.throw(/auto and default are the standard rates/);
  });
});

describe('a charge split by kind', () => {
  it('gives each kind its exact share, the rounding left to the largest fractions, adding up to the total', () => {
    // input 0.4 n$, output 0.4 n$, reasoning 0.3 n$: exact 1.1 n$, rounded up once to 2 n$
    // floors are 0, 0, 0; the two nanodollars go to the two largest fractions (input 0.4 before output 0.4)
    const cost = new CostAccumulator().addPerMillion('input', 400_000, 1n).addPerMillion('output', 400_000, 1n).addPerMillion('reasoning', 300_000, 1n);
    expect(cost.total()).to.equal(2n);
    expect(cost.byKind()).to.deep.equal({ input: 1n, output: 1n });
  });

  it('leaves out a kind with nothing and splits a whole charge without rounding', () => {
    const cost = new CostAccumulator().addPerMillion('input', 1_000_000, 5n).addPerMillion('cachedInput', 0, 7n).addPerItem('media', 2, 3n);
    expect(cost.byKind()).to.deep.equal({ input: 5n, media: 6n });
    expect(new CostAccumulator().byKind()).to.deep.equal({});
  });
});

describe('the reserve of the largest answer', () => {
  it('prices the worst case as the dearest kind its tokens could be reported as', () => {
    // p/every-rate: 1,000 input tokens could come back as one-hour cache writes ($6) or audio ($40):
    // 1,000 × $40 = 40,000,000 n$; 500 output tokens as audio ($80): 500 × $80 = 40,000,000 n$; total 80,000,000
    expect(worstCaseCharge(pricing('p/every-rate'), createUsage({ inputTokens: 1_000, outputTokens: 500 })).cost).to.equal(80_000_000n);
    // p/five-minute-writes: input at the write rate $3.75 = 3,750,000 n$, output 500 × $15 = 7,500,000 n$
    expect(worstCaseCharge(pricing('p/five-minute-writes'), createUsage({ inputTokens: 1_000, outputTokens: 500 })).cost).to.equal(11_250_000n);
    // p/two-rates has text rates only: 1,000 × $2 + 500 × $8 = 2,000,000 + 4,000,000 = 6,000,000 n$
    expect(worstCaseCharge(pricing('p/two-rates'), createUsage({ inputTokens: 1_000, outputTokens: 500 })).cost).to.equal(6_000_000n);
  });
});
