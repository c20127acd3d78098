import type { PricingEntry } from '../catalog/catalog-schema.js';
import type { Pricing } from '../catalog/catalog.js';
import { pricingFromEntry } from '../catalog/pricing.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ModelPriceSet, PriceEvent, PriceSource } from './price-events.js';

/**
 * The price decider: pure `decide…(state, …, now) → events`, and `evolvePrices` to fold them. It is the
 * only place that says when a price version is recorded and which version is in force at a time.
 */
export interface PriceVersion {
  readonly model: string;
  readonly version: number;
  readonly effectiveAt: Date;
  readonly source: PriceSource;
  /** The rates as recorded (USD strings). */
  readonly pricingUsd: PricingEntry;
  /** The same rates in nanodollars, as the pricing function reads them. */
  readonly pricing: Pricing;
}

/** Every model's versions, oldest first. */
export type PriceState = ReadonlyMap<string, readonly PriceVersion[]>;
export const initialPriceState: PriceState = new Map();

export function evolvePrices(state: PriceState, event: PriceEvent): PriceState {
  const { model, version, effectiveAt, source, pricing } = event.data;
  const versions = state.get(model) ?? [];
  if (versions.some((known) => known.version === version)) return state;
  const next = new Map(state);
  const added: PriceVersion = { model, version, effectiveAt: new Date(effectiveAt), source, pricingUsd: pricing, pricing: pricingFromEntry(pricing) };
  next.set(model, [...versions, added].sort((a, b) => a.version - b.version));
  return next;
}

/**
 * The version in force at `at`: of the versions effective by then, the one that took effect last (the
 * higher version when two took effect at once). A version scheduled for later waits its time; a catalog
 * change recorded meanwhile is in force until then. A time before the model's first version took effect
 * (an instance whose clock is behind the one that recorded it) is priced at the first version: a model
 * the catalog serves always has a price.
 */
export function priceInForce(versions: readonly PriceVersion[], at: Date): PriceVersion | undefined {
  let inForce: PriceVersion | undefined;
  let first: PriceVersion | undefined;
  for (const candidate of versions) {
    const effective = candidate.effectiveAt.getTime();
    if (!first || effective < first.effectiveAt.getTime()) first = candidate;
    if (effective > at.getTime()) continue;
    if (!inForce || effective >= inForce.effectiveAt.getTime()) inForce = candidate;
  }
  return inForce ?? first;
}

/**
 * The catalog's prices, recorded where they differ from the model's last catalog-sourced version (or the
 * model has none), effective `now`. Comparing with the catalog's own last version, not with the version
 * in force, leaves a price set through the admin API in force until the catalog's prices really change.
 */
export function decideCatalogPrices(state: PriceState, catalog: ReadonlyArray<{ model: string; pricing: PricingEntry }>, now: Date): ModelPriceSet[] {
  const events: ModelPriceSet[] = [];
  for (const { model, pricing } of catalog) {
    const versions = state.get(model) ?? [];
    const lastFromCatalog = versions.filter((known) => known.source === 'catalog').at(-1);
    if (lastFromCatalog && samePrices(lastFromCatalog.pricingUsd, pricing)) continue;
    events.push(priceSet(model, nextVersion(versions), now, 'catalog', pricing));
  }
  return events;
}

/**
 * A price set through the admin API, in force from `effectiveAt` (now when absent). A time already past is
 * refused: a version must never take effect behind charges already made at another.
 */
export function decideScheduledPrice(state: PriceState, command: { model: string; pricing: PricingEntry; effectiveAt?: Date }, now: Date): ModelPriceSet {
  const effectiveAt = command.effectiveAt ?? now;
  if (effectiveAt.getTime() < now.getTime()) throw new GatewayError('invalid_request', 'effective_at is in the past: a price can only take effect from now on');
  return priceSet(command.model, nextVersion(state.get(command.model) ?? []), effectiveAt, 'admin', command.pricing);
}

function priceSet(model: string, version: number, effectiveAt: Date, source: PriceSource, pricing: PricingEntry): ModelPriceSet {
  return { type: 'ModelPriceSet', data: { model, version, effectiveAt: effectiveAt.toISOString(), source, pricing } };
}

function nextVersion(versions: readonly PriceVersion[]): number {
  return (versions.at(-1)?.version ?? 0) + 1;
}

/** Two sets of rates that price everything alike ("0.10" and "0.1" are one rate). */
export function samePrices(a: PricingEntry, b: PricingEntry): boolean {
  return canonical(pricingFromEntry(a)) === canonical(pricingFromEntry(b));
}

function canonical(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, field]) => field !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonical(field)}`).join(',')}}`;
}
