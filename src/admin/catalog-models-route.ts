import { Router } from 'express';
import { z } from 'zod';
import type { ListRecord, ModelRecord, PriceVersionRecord } from '../admin-records.js';
import { pricingSchema } from '../catalog/catalog-schema.js';
import type { CatalogStore } from '../catalog/catalog-store.js';
import { checkPricing } from '../catalog/load-catalog.js';
import { renderModelList } from '../catalog/model-list.js';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors/gateway-error.js';
import { parseJsonObject } from '../http/request-body.js';
import type { RequestContext } from '../http/request-context.js';
import type { PriceBook } from '../prices/price-book.js';
import type { PriceVersion } from '../prices/price-decider.js';
import { parseBody } from './admin-schemas.js';

export interface CatalogModelDependencies {
  readonly catalog: CatalogStore;
  readonly prices: PriceBook;
  readonly clock: Clock;
}

const priceBody = z.strictObject({
  pricing: pricingSchema,
  /** When the price takes effect (now when absent); never in the past. */
  effective_at: z.iso.datetime({ offset: true }).optional(),
});

/** A model id holds a slash (`openai/gpt-4o`): the routes take it whole, raw or as `openai%2Fgpt-4o`. */
const MODEL_PRICES = /^\/admin\/v1\/models\/(.+)\/prices$/;

/**
 * `GET /admin/v1/models`: every model of the catalog at its price in force, in the shape of `GET /v1/models`
 * (which lists only the calling key's); the console's models page.
 *
 * `GET /admin/v1/models/{id}/prices`: the model's price versions, oldest first, each in force, scheduled or
 * superseded. `POST /admin/v1/models/{id}/prices` records a new version, `{pricing, effective_at?}`, in
 * force from `effective_at` (now when absent) on every instance (docs/operator-guide.md, "Prices").
 */
export function catalogModelsRoute(deps: CatalogModelDependencies): Router {
  const router = Router();
  router.get('/admin/v1/models', (_req, res) => {
    const now = deps.clock.now();
    const list: ListRecord<ModelRecord> = renderModelList(deps.catalog.current.models.values(), (model) => deps.prices.inForce(model, now));
    res.json(list);
  });
  router.get(MODEL_PRICES, (req, res) => {
    const model = catalogModel(deps, req.params[0]);
    const history = deps.prices.history(model);
    const list: ListRecord<PriceVersionRecord> = { object: 'list', data: history.map((version) => renderPriceVersion(version, deps.prices, deps.clock.now())) };
    res.json(list);
  });
  router.post(MODEL_PRICES, async (req, res) => {
    const model = deps.catalog.findModel(catalogModel(deps, req.params[0]))!;
    const input = parseBody(priceBody, parseJsonObject((res.locals as RequestContext).body ?? Buffer.alloc(0)));
    // a text model keeps its masking fee when the new rates leave it out (as the catalog's default does)
    const pricing = model.category === 'text' ? { ...input.pricing, pii_masking_fee: input.pricing.pii_masking_fee ?? model.pricingUsd.pii_masking_fee } : input.pricing;
    const problem = checkPricing(model.category, pricing);
    if (problem) throw new GatewayError('invalid_request', `pricing: ${problem}`, { param: 'pricing' });
    const now = deps.clock.now();
    const effectiveAt = input.effective_at === undefined ? undefined : new Date(input.effective_at);
    const recorded = await deps.prices.schedule({ model: model.id, pricing, ...(effectiveAt ? { effectiveAt } : {}) }, now, 'admin:api');
    res.status(201).json(renderPriceVersion(recorded, deps.prices, now));
  });
  return router;
}

function catalogModel(deps: CatalogModelDependencies, raw: string | undefined): string {
  const id = raw ?? '';
  if (!deps.catalog.findModel(id)) throw new GatewayError('model_not_found', `${id} is not in the catalog`);
  return id;
}

function renderPriceVersion(version: PriceVersion, prices: PriceBook, now: Date): PriceVersionRecord {
  const inForce = prices.inForce(version.model, now);
  const status = inForce?.version === version.version ? 'in_force' : version.effectiveAt > now ? 'scheduled' : 'superseded';
  return {
    object: 'model.price',
    model: version.model,
    version: version.version,
    effective_at: version.effectiveAt.toISOString(),
    source: version.source,
    status,
    pricing: version.pricingUsd,
  };
}
