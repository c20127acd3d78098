import { COST_KINDS, formatUsd } from '../billing/money.js';
import type { Usage } from '../billing/usage.js';
import { chargeOf, pricingForTier } from '../catalog/pricing.js';
import type { CostByKindStrings } from '../ledger/account-events.js';
import type { PriceState } from '../prices/price-decider.js';

/** What a settle or a cut-off recorded about its charge. */
export interface ChargeToReprice {
  readonly reservationId: string;
  readonly cost: string;
  readonly piiMaskingFee: string;
  readonly usage: Usage;
  readonly costByKind: CostByKindStrings;
  readonly priceVersion: number | null;
  readonly serviceTier: string | null;
  /** The price book entry the version is of (version 3 of the events); null: the reservation's model. */
  readonly pricedAs?: string | null;
}

/**
 * `verify`'s re-pricing of one charge: its recorded usage priced again, by the one pricing function, at the
 * price version and tier it records (as the log's price events hold them), of the model or deployment it
 * names as priced (`pricedAs`), else of the reservation's model. The cost, the masking fee and,
 * where the charge was split, each kind must come out equal; each that does not is named. A charge
 * recorded before prices were versioned has no version to be priced at, and is counted apart.
 */
export function repriceCharge(
  result: { checked: number; notVersioned: number; readonly mispriced: string[] },
  prices: PriceState,
  orgId: string,
  model: string,
  charge: ChargeToReprice,
): void {
  const { reservationId, priceVersion, serviceTier } = charge;
  // a request answered by a fallback, or by a deployment with rates of its own, is priced as it records
  model = charge.pricedAs ?? model;
  if (priceVersion === null) {
    result.notVersioned++;
    return;
  }
  result.checked++;
  const where = `${orgId}: ${reservationId} (${model} at price version ${priceVersion}${serviceTier ? `, tier ${serviceTier}` : ''})`;
  const version = prices.get(model)?.find((known) => known.version === priceVersion);
  if (!version) {
    result.mispriced.push(`${where} names a price version the log does not hold`);
    return;
  }
  const pricing = pricingForTier(version.pricing, serviceTier ?? undefined);
  if (!pricing) {
    result.mispriced.push(`${where} names a service tier its price version does not list`);
    return;
  }
  const expected = chargeOf(pricing, charge.usage);
  if (expected.cost !== BigInt(charge.cost)) {
    result.mispriced.push(`${where} was charged $${formatUsd(BigInt(charge.cost))}, but its usage at that price costs $${formatUsd(expected.cost)}`);
    return;
  }
  if (expected.piiMaskingFee !== BigInt(charge.piiMaskingFee)) {
    result.mispriced.push(`${where} records a masking fee of $${formatUsd(BigInt(charge.piiMaskingFee))}, but its price says $${formatUsd(expected.piiMaskingFee)}`);
    return;
  }
  if (Object.keys(charge.costByKind).length === 0) return;
  for (const kind of COST_KINDS) {
    const recorded = BigInt(charge.costByKind[kind] ?? '0');
    const priced = expected.costByKind[kind] ?? 0n;
    if (recorded !== priced) result.mispriced.push(`${where} records $${formatUsd(recorded)} of ${kind}, but its usage at that price gives $${formatUsd(priced)}`);
  }
}
