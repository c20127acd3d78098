import type { CatalogModel } from './catalog.js';

/**
 * `GET /v1/models`: an OpenAI model list (`object: list`, `data[]` of `{id, object: model, created, owned_by}`),
 * each entry extended with what a client needs to choose and budget: category, lengths, prices, capabilities.
 */
export function renderModelList(models: Iterable<CatalogModel>) {
  const data = [];
  for (const model of models) {
    data.push({
      id: model.id,
      object: 'model' as const,
      created: model.created,
      owned_by: model.provider.name,
      category: model.category,
      context_length: model.contextLength ?? null,
      max_output_tokens: model.category === 'text' ? model.maxOutputTokens : null,
      pricing: model.pricingUsd,
      capabilities: model.capabilities,
      ...(model.video ? { video: { seconds: model.video.seconds, sizes: model.video.sizes, aspect_ratios: model.video.aspectRatios } } : {}),
    });
  }
  return { object: 'list' as const, data };
}
