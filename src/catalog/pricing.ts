import { CostAccumulator, type Nanodollars } from '../billing/money.js';
import type { Usage } from '../billing/usage.js';
import type { CatalogModel } from './catalog.js';

/**
 * The real cost of a request from its usage, exact and rounded up once (DESIGN.md section 6).
 * Input tokens are the whole input: cache reads and cache writes are priced at their own rates when the
 * catalog has them, at the input rate otherwise; output tokens include reasoning tokens. A count the
 * provider did not report adds nothing (a request with no usage at all is counted before it gets here).
 * A masked request adds the model's PII masking fee.
 */
export function costOfUsage(model: CatalogModel, usage: Usage): Nanodollars {
  const { pricing } = model;
  const cost = new CostAccumulator();
  const input = usage.inputTokens ?? 0;
  const cached = Math.min(usage.cachedInputTokens ?? 0, input);
  const cacheWrite = Math.min(usage.cacheWriteTokens ?? 0, input - cached);
  const inputPrice = pricing.inputPerMillion ?? 0n;
  cost.addPerMillion(input - cached - cacheWrite, inputPrice);
  cost.addPerMillion(cached, pricing.cachedInputPerMillion ?? inputPrice);
  cost.addPerMillion(cacheWrite, pricing.cacheWritePerMillion ?? inputPrice);
  cost.addPerMillion(usage.outputTokens ?? 0, pricing.outputPerMillion ?? 0n);
  if (pricing.perImage !== undefined) cost.addPerItem(usage.images ?? 0, pricing.perImage);
  if (pricing.perVideoSecond !== undefined) cost.addPerItem(Math.ceil(usage.videoSeconds ?? 0), pricing.perVideoSecond);
  if (pricing.perAudioMinute !== undefined && usage.audioSeconds !== undefined) {
    // seconds may be fractional: price the exact milliseconds, rounded up
    cost.addFraction(BigInt(Math.ceil(usage.audioSeconds * 1000)), 60_000n, pricing.perAudioMinute);
  }
  return cost.total() + piiMaskingFeeOf(model, usage);
}

/**
 * The part of a request's cost that is the PII masking fee: the model's fee for each masked request. A whole
 * number of nanodollars, added after the tokens' rounding, so the ledger can record it apart (the spend
 * report's type `pii`). A masked request on a model without a fee cannot happen: every text model has one
 * (load-catalog.ts) and only text is masked.
 */
export function piiMaskingFeeOf(model: CatalogModel, usage: Usage): Nanodollars {
  const masked = usage.piiMaskedRequests ?? 0;
  if (masked === 0) return 0n;
  if (model.pricing.piiMaskingFee === undefined) throw new Error(`${model.id} has no PII masking fee but a masked request was priced on it`);
  return BigInt(masked) * model.pricing.piiMaskingFee;
}
