import { CostAccumulator, parseUsd, type CostByKind, type Nanodollars } from '../billing/money.js';
import type { Usage } from '../billing/usage.js';
import type { PricingEntry, TierRatesEntry } from './catalog-schema.js';
import type { Pricing } from './catalog.js';

/** What a request is charged for its usage: the cost, the part of it that is the masking fee, and the rest by kind. */
export interface Charge {
  readonly cost: Nanodollars;
  readonly piiMaskingFee: Nanodollars;
  /** The cost without the masking fee, split by kind; the parts add up to `cost − piiMaskingFee`. */
  readonly costByKind: CostByKind;
}

/**
 * The one pricing function: the cost of a usage at a price (a model's rates of one price version, for one
 * service tier), exact and rounded up once (DESIGN.md section 6). Both the reserve (the usage of the largest
 * answer) and the settlement (the usage reported) are priced here, so they can never follow other rules.
 *
 * Token counts nest as the Usage says: the input includes cache reads, cache writes (some of them for an
 * hour) and audio; the output includes reasoning and audio. Each part is priced at its own rate, and a rate
 * the price lacks falls back (the operator guide, "Prices"): a cache read or a cache write at the input rate,
 * an hour's cache write at the five-minute write rate, audio at the text rate, reasoning at the output rate.
 * Nothing is ever free for want of a rate. A count the provider did not report adds nothing. A masked request
 * adds the masking fee, a whole number of nanodollars kept apart (the spend report's type `pii`).
 */
export function chargeOf(pricing: Pricing, usage: Usage): Charge {
  const cost = new CostAccumulator();
  const input = usage.inputTokens ?? 0;
  const cached = Math.min(usage.cachedInputTokens ?? 0, input);
  const cacheWrite = Math.min(usage.cacheWriteTokens ?? 0, input - cached);
  const cacheWrite1h = Math.min(usage.cacheWrite1hTokens ?? 0, cacheWrite);
  const audioInput = Math.min(usage.audioInputTokens ?? 0, input - cached - cacheWrite);
  const inputPrice = pricing.inputPerMillion ?? 0n;
  const cacheWritePrice = pricing.cacheWritePerMillion ?? inputPrice;
  cost.addPerMillion('input', input - cached - cacheWrite - audioInput, inputPrice);
  cost.addPerMillion('cachedInput', cached, pricing.cachedInputPerMillion ?? inputPrice);
  cost.addPerMillion('cacheWrite', cacheWrite - cacheWrite1h, cacheWritePrice);
  cost.addPerMillion('cacheWrite', cacheWrite1h, pricing.cacheWrite1hPerMillion ?? cacheWritePrice);
  cost.addPerMillion('audio', audioInput, pricing.audioInputPerMillion ?? inputPrice);

  const output = usage.outputTokens ?? 0;
  const audioOutput = Math.min(usage.audioOutputTokens ?? 0, output);
  const reasoning = Math.min(usage.reasoningTokens ?? 0, output - audioOutput);
  const outputPrice = pricing.outputPerMillion ?? 0n;
  cost.addPerMillion('output', output - audioOutput - reasoning, outputPrice);
  cost.addPerMillion('reasoning', reasoning, outputPrice);
  cost.addPerMillion('audio', audioOutput, pricing.audioOutputPerMillion ?? outputPrice);

  if (pricing.perImage !== undefined) cost.addPerItem('media', usage.images ?? 0, pricing.perImage);
  if (pricing.perVideoSecond !== undefined) cost.addPerItem('media', Math.ceil(usage.videoSeconds ?? 0), pricing.perVideoSecond);
  if (pricing.perAudioMinute !== undefined && usage.audioSeconds !== undefined) {
    // seconds may be fractional: price the exact milliseconds, rounded up
    cost.addFraction('media', BigInt(Math.ceil(usage.audioSeconds * 1000)), 60_000n, pricing.perAudioMinute);
  }
  const piiMaskingFee = piiMaskingFeeOf(pricing, usage);
  return { cost: cost.total() + piiMaskingFee, piiMaskingFee, costByKind: cost.byKind() };
}

/**
 * The charge of the largest answer: the worst case's tokens each billed as the dearest kind they could turn
 * out to be. Its input may come back as cache writes (an hour's at up to twice the input rate) or audio, its
 * output as audio; the reserve must cover whichever the provider reports, so every way of reporting it is
 * priced by `chargeOf` and the largest kept (one way when the price has no rate above the text rates).
 */
export function worstCaseCharge(pricing: Pricing, worstCase: Usage): Charge {
  const input = worstCase.inputTokens ?? 0;
  const output = worstCase.outputTokens ?? 0;
  const inputs: Array<Partial<Usage>> = [{}, { cacheWriteTokens: input }, { cacheWriteTokens: input, cacheWrite1hTokens: input }, { audioInputTokens: input }];
  const outputs: Array<Partial<Usage>> = [{}, { audioOutputTokens: output }];
  let dearest = chargeOf(pricing, worstCase);
  const dearer = (rate: Nanodollars | undefined, than: Nanodollars | undefined) => rate !== undefined && rate > (than ?? 0n);
  const dearerInput = [pricing.cacheWritePerMillion, pricing.cacheWrite1hPerMillion, pricing.audioInputPerMillion].some((rate) => dearer(rate, pricing.inputPerMillion));
  // most prices have none: the text rates are the dearest, and the worst case is priced once
  if ((input === 0 || !dearerInput) && (output === 0 || !dearer(pricing.audioOutputPerMillion, pricing.outputPerMillion))) return dearest;
  for (const inputAs of inputs) {
    for (const outputAs of outputs) {
      const charge = chargeOf(pricing, { ...worstCase, ...inputAs, ...outputAs });
      if (charge.cost > dearest.cost) dearest = charge;
    }
  }
  return dearest;
}

/** The cost of a usage at a price: `chargeOf(…).cost`. */
export function costOfUsage(pricing: Pricing, usage: Usage): Nanodollars {
  return chargeOf(pricing, usage).cost;
}

/**
 * The masking fee of a usage: the price's fee for each masked request. A masked request on a model without a
 * fee cannot happen: every text model has one (load-catalog.ts) and only text is masked.
 */
function piiMaskingFeeOf(pricing: Pricing, usage: Usage): Nanodollars {
  const masked = usage.piiMaskedRequests ?? 0;
  if (masked === 0) return 0n;
  if (pricing.piiMaskingFee === undefined) throw new Error('a masked request was priced without a PII masking fee');
  return BigInt(masked) * pricing.piiMaskingFee;
}

/**
 * The rates of one service tier (spec 1.6 passes `service_tier` on to the provider, which prices tiers
 * differently): the tier's own rates where the price lists them, the standard ones for the rest. Undefined
 * when the price does not list the tier (the request is then refused: the gateway charges no tier it has no
 * rates for). `auto` and `default`, and no tier, are the standard rates.
 */
export function pricingForTier(pricing: Pricing, tier: string | undefined): Pricing | undefined {
  if (tier === undefined || tier === 'auto' || tier === 'default') return pricing;
  const rates = pricing.serviceTiers?.[tier];
  if (rates === undefined) return undefined;
  const listed = Object.entries(rates).filter(([, rate]) => rate !== undefined);
  return { ...pricing, ...Object.fromEntries(listed) };
}

/** The rates of a catalog entry (or of a price event, which records the same USD strings) in nanodollars. */
export function pricingFromEntry(entry: PricingEntry): Pricing {
  const tiers = entry.service_tiers && Object.fromEntries(Object.entries(entry.service_tiers).map(([tier, rates]) => [tier, ratesFromEntry(rates)]));
  return { ...ratesFromEntry(entry), piiMaskingFee: price(entry.pii_masking_fee), ...(tiers ? { serviceTiers: tiers } : {}) };
}

function ratesFromEntry(entry: TierRatesEntry): Omit<Pricing, 'serviceTiers' | 'piiMaskingFee'> {
  return {
    inputPerMillion: price(entry.input_per_mtok),
    outputPerMillion: price(entry.output_per_mtok),
    cachedInputPerMillion: price(entry.cached_input_per_mtok),
    cacheWritePerMillion: price(entry.cache_write_per_mtok),
    cacheWrite1hPerMillion: price(entry.cache_write_1h_per_mtok),
    audioInputPerMillion: price(entry.audio_input_per_mtok),
    audioOutputPerMillion: price(entry.audio_output_per_mtok),
    perImage: price(entry.per_image),
    perAudioMinute: price(entry.per_audio_minute),
    perVideoSecond: price(entry.per_video_second),
  };
}

const price = (value: string | undefined) => (value === undefined ? undefined : parseUsd(value));
