import type { PricingEntry } from './catalog-schema.js';
import type { CatalogModel } from './catalog.js';

/** A model's price in force: its version's rates (the catalog's USD strings), number and effective time. */
export interface ListedPrice {
  readonly version: number;
  readonly effectiveAt: Date;
  readonly pricingUsd: PricingEntry;
}

/**
 * `GET /v1/models`: an OpenAI model list (`object: list`, `data[]` of `{id, object: model, created, owned_by}`),
 * each entry extended with what a client needs to choose and budget: category, lengths, the price in force
 * (its rates, its version and since when), capabilities. A model without a price version shows the
 * catalog's rates (it cannot be served, see src/prices).
 */
export function renderModelList(models: Iterable<CatalogModel>, priceOf: (model: string) => ListedPrice | undefined) {
  const data = [];
  for (const model of models) {
    const price = priceOf(model.id);
    data.push({
      id: model.id,
      object: 'model' as const,
      created: model.created,
      owned_by: model.provider.name,
      category: model.category,
      context_length: model.contextLength ?? null,
      max_output_tokens: model.category === 'text' ? model.maxOutputTokens : null,
      pricing: price?.pricingUsd ?? model.pricingUsd,
      pricing_version: price?.version ?? null,
      pricing_effective_at: price?.effectiveAt.toISOString() ?? null,
      capabilities: model.capabilities,
      ...(model.video ? { video: { seconds: model.video.seconds, sizes: model.video.sizes, aspect_ratios: model.video.aspectRatios } } : {}),
    });
  }
  return { object: 'list' as const, data };
}
