import type { Nanodollars } from '../billing/money.js';
import type { Usage } from '../billing/usage.js';
import type { CatalogModel, Deployment } from '../catalog/catalog.js';
import type { CatalogStore } from '../catalog/catalog-store.js';
import { worstCaseCharge } from '../catalog/pricing.js';
import type { EndpointRequest, EndpointSpec, BodyKind, ReserveEstimate } from '../endpoints/endpoint-spec.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { appliedPrice, type AppliedPrice } from '../prices/applied-price.js';
import type { PriceList } from '../prices/price-book.js';
import { keyAllowsModel, type Caller } from './authenticate.js';

/**
 * One place a request may be answered from: a candidate model (the requested one or a fallback), one of
 * its deployments, and the price the request is charged at if it answers (that deployment's own rates, or
 * the model's, at the version in force when the request arrived, for its tier).
 */
export interface PricedCandidate {
  /** The catalog's model (the requested one or a fallback). */
  readonly model: CatalogModel;
  readonly deployment: Deployment;
  readonly price: AppliedPrice;
  /** The usage of the largest answer this model allows the request (models differ in their ceilings). */
  readonly estimate: ReserveEstimate;
}

/**
 * The models a request may end on, in order: the requested one, then the request's own `fallbacks` when it
 * names any, else the catalog's. A model the request names must exist (`404 model_not_found`), be served by
 * this endpoint (`400 model_category_mismatch`) and be allowed to the key (`403 model_not_allowed`), as the
 * model itself must; a catalog fallback the key may not use is left out, without an error (the client did
 * not ask for it).
 */
export function candidateModels<Request extends EndpointRequest, Kind extends BodyKind>(
  catalog: Pick<CatalogStore, 'findModel'>,
  spec: EndpointSpec<Request, Kind>,
  caller: Caller,
  model: CatalogModel,
  requested: readonly string[] | undefined,
): CatalogModel[] {
  if (requested === undefined) {
    const fallbacks = model.fallbacks.map((id) => catalog.findModel(id)).filter((found): found is CatalogModel => found !== undefined);
    return [model, ...fallbacks.filter((fallback) => spec.categories.includes(fallback.category) && keyAllowsModel(caller.key, fallback.id))];
  }
  const fallbacks = requested.filter((id) => id !== model.id).map((id) => {
    const fallback = catalog.findModel(id);
    if (!fallback) throw new GatewayError('model_not_found', `fallback model ${id} is not in the catalog`, { param: 'fallbacks' });
    if (!spec.categories.includes(fallback.category) || fallback.category !== model.category) {
      throw new GatewayError('model_category_mismatch', `fallback ${fallback.id} is a ${fallback.category} model; ${model.id} is a ${model.category} model`, { param: 'fallbacks' });
    }
    if (!keyAllowsModel(caller.key, fallback.id)) throw new GatewayError('model_not_allowed', `this API key may not use ${fallback.id} (named in fallbacks)`);
    return fallback;
  });
  return [model, ...fallbacks];
}

/**
 * Every deployment of every candidate, priced: at its own rates when it has them, else at its model's. A
 * tier a fallback's price does not list leaves that deployment out (the request asked for the tier; it is
 * never run at another tier's rates); the requested model's own first deployment must price it, or the
 * request is refused as before (`400 unsupported_service_tier`).
 */
export function priceCandidates(
  prices: PriceList,
  candidates: ReadonlyArray<{ readonly model: CatalogModel; readonly estimate: ReserveEstimate }>,
  at: Date,
): PricedCandidate[] {
  const priced: PricedCandidate[] = [];
  for (const [index, { model, estimate }] of candidates.entries()) {
    for (const deployment of model.deployments) {
      try {
        priced.push({ model, deployment, estimate, price: appliedPrice(prices, deployment.priceKey, estimate.serviceTier, at) });
      } catch (error) {
        const skippable = isGatewayError(error) && error.code === 'unsupported_service_tier' && (index > 0 || priced.length > 0);
        if (!skippable) throw error;
      }
    }
  }
  return priced;
}

/**
 * The reserve of a request that may end on any of its candidates: the largest worst case among them, each
 * priced by the one pricing function at its own price. `worstCase` replaces each candidate's own where the
 * request was changed after the estimate (a cost cap's lowered output).
 */
export function dearestWorstCase(priced: readonly PricedCandidate[], worstCase?: Usage): Nanodollars {
  let dearest = 0n;
  for (const candidate of priced) {
    const cost = worstCaseCharge(candidate.price.pricing, worstCase ?? candidate.estimate.worstCase).cost;
    if (cost > dearest) dearest = cost;
  }
  return dearest;
}

/**
 * How long a request may take with its attempts: per candidate model, the slowest of its deployments'
 * timeouts, after its retry budget when it may make more than one attempt (no attempt starts after it).
 * A model of one attempt and no fallbacks keeps the deadline it always had: its provider's timeout.
 */
export function servingWindowMs(priced: readonly PricedCandidate[]): number {
  const byModel = new Map<string, number>();
  for (const { model, deployment } of priced) {
    const budget = model.retry.maxAttempts > 1 ? model.retry.budgetMs : 0;
    byModel.set(model.id, Math.max(byModel.get(model.id) ?? 0, budget + deployment.provider.timeoutMs));
  }
  return [...byModel.values()].reduce((sum, ms) => sum + ms, 0);
}
