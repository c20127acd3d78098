import type { Pricing } from '../catalog/catalog.js';
import { pricingForTier } from '../catalog/pricing.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { PriceBook } from './price-book.js';

/**
 * The price one request is charged at, fixed when its money is reserved: the version in force then, and
 * the service tier the provider is asked for. The settlement prices the usage at the same rates, so a
 * price change while the request runs never changes its charge.
 */
export interface AppliedPrice {
  readonly version: number;
  /** The tier priced (`flex`, `priority`, …); null for the standard rates (no tier, `auto`, `default`). */
  readonly serviceTier: string | null;
  /** The version's rates, the tier's applied. */
  readonly pricing: Pricing;
}

/**
 * The price in force for the model at `at`, for the tier the provider will be asked for. A tier the price
 * does not list is refused (`400 unsupported_service_tier`): the gateway never lets a provider run a tier
 * it would charge at another tier's rates. A model without any price version cannot be served (the
 * catalog's prices are recorded before it serves a model, so this is a broken store, not a client error).
 */
export function appliedPrice(prices: Pick<PriceBook, 'inForce'>, model: string, tier: string | undefined, at: Date): AppliedPrice {
  const inForce = prices.inForce(model, at);
  if (!inForce) throw new GatewayError('internal_error', `${model} has no price version in force`);
  const pricing = pricingForTier(inForce.pricing, tier);
  if (!pricing) {
    const listed = Object.keys(inForce.pricing.serviceTiers ?? {});
    const offered = listed.length > 0 ? `; this model is priced for ${listed.join(', ')}` : '; this model is priced for the standard tier only';
    throw new GatewayError('unsupported_service_tier', `service_tier ${tier} has no price in the catalog${offered} (or auto, default)`);
  }
  return { version: inForce.version, serviceTier: isStandard(tier) ? null : tier!, pricing };
}

/** The price a reserve recorded, found again (a video job billed after a price change). */
export function recordedPrice(prices: Pick<PriceBook, 'version'>, model: string, version: number, tier: string | null): AppliedPrice | undefined {
  const recorded = prices.version(model, version);
  const pricing = recorded && pricingForTier(recorded.pricing, tier ?? undefined);
  return pricing && { version, serviceTier: tier, pricing };
}

function isStandard(tier: string | undefined): boolean {
  return tier === undefined || tier === 'auto' || tier === 'default';
}
