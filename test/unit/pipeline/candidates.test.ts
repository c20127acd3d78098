import { expect } from 'chai';
import type { CatalogModel, Deployment, RetryRules } from '../../../src/catalog/catalog.js';
import { chatEndpoint } from '../../../src/endpoints/text/text-endpoints.js';
import type { ReserveEstimate } from '../../../src/endpoints/endpoint-spec.js';
import { candidateModels, priceCandidates, servingWindowMs, type PricedCandidate } from '../../../src/pipeline/candidates.js';
import { decideCatalogPrices, evolvePrices, initialPriceState, priceInForce } from '../../../src/prices/price-decider.js';
import type { PriceList } from '../../../src/prices/price-book.js';
import { NOW, testCaller, testCatalog, testModel } from '../../support/pipeline-stages.js';

/**
 * The models a request may end on. A catalog fallback is the operator's choice and is left out, without an
 * error, for a key that may not use it: a key limited to one model is never answered, nor charged, by
 * another. A fallback the request names itself must be one the key may use, of the requested model's kind.
 */
describe('candidates: the models a request may end on', () => {
  const mini = 'openai/gpt-4o-mini';
  async function withCatalogFallbacks(fallbacks: string[]): Promise<CatalogModel> {
    return { ...(await testModel(mini)), fallbacks };
  }

  it("keeps the catalog's fallbacks in order, leaving out those the key may not use", async () => {
    const catalog = await testCatalog();
    const model = await withCatalogFallbacks(['local/llama', 'anthropic/claude-sonnet-4-5']);
    const ids = (models: string[] | null) => candidateModels(catalog, chatEndpoint, testCaller({ models }), model, undefined).map((each) => each.id);
    expect(ids(null)).to.deep.equal([mini, 'local/llama', 'anthropic/claude-sonnet-4-5']);
    expect(ids([mini, 'anthropic/claude-sonnet-4-5'])).to.deep.equal([mini, 'anthropic/claude-sonnet-4-5']);
    expect(ids([mini])).to.deep.equal([mini]);
  });

  it('takes the fallbacks the request names instead of the catalog’s, without the requested model twice', async () => {
    const catalog = await testCatalog();
    const model = await withCatalogFallbacks(['anthropic/claude-sonnet-4-5']);
    const named = candidateModels(catalog, chatEndpoint, testCaller(), model, [mini, 'local/llama', mini]);
    expect(named.map((each) => each.id)).to.deep.equal([mini, 'local/llama']);
  });

  it('refuses a named fallback that is unknown, of another kind (an image model on chat, which serves both), or not allowed, saying which', async () => {
    const catalog = await testCatalog();
    const model = await testModel(mini);
    const refusal = (requested: string[], models: string[] | null = null) => {
      try {
        candidateModels(catalog, chatEndpoint, testCaller({ models }), model, requested);
      } catch (error) {
        const { code, message, param } = error as { code: string; message: string; param?: string };
        return { code, message, param };
      }
      return expect.fail('not refused');
    };
    expect(refusal(['openai/nope'])).to.deep.equal({ code: 'model_not_found', message: 'fallback model openai/nope is not in the catalog', param: 'fallbacks' });
    expect(refusal(['openai/gpt-image-1'])).to.deep.equal({
      code: 'model_category_mismatch',
      message: 'fallback openai/gpt-image-1 is a image model; openai/gpt-4o-mini is a text model',
      param: 'fallbacks',
    });
    expect(refusal(['local/llama'], [mini])).to.deep.include({ code: 'model_not_allowed', message: 'this API key may not use local/llama (named in fallbacks)' });
  });
});

describe('candidates: how long a request may take', () => {
  const rules = (maxAttempts: number): RetryRules => ({ maxAttempts, budgetMs: 5_000, initialBackoffMs: 100, maxBackoffMs: 1_000, cooldownAfterFailures: 3, cooldownMs: 30_000 });
  const candidate = (modelId: string, maxAttempts: number, timeoutMs: number) =>
    ({ model: { id: modelId, retry: rules(maxAttempts) }, deployment: { provider: { timeoutMs } } as unknown as Deployment }) as unknown as PricedCandidate;

  it("is a model's slowest deployment, after its retry budget only when it may retry, summed over the models", () => {
    // one attempt: the provider's timeout alone, 60,000 ms
    expect(servingWindowMs([candidate('a', 1, 60_000)])).to.equal(60_000);
    // three attempts: the budget 5,000 + the slowest of its deployments 60,000 = 65,000 ms
    expect(servingWindowMs([candidate('a', 3, 30_000), candidate('a', 3, 60_000)])).to.equal(65_000);
    // and a fallback of one attempt after it: 65,000 + 10,000 = 75,000 ms
    expect(servingWindowMs([candidate('a', 3, 60_000), candidate('b', 1, 10_000)])).to.equal(75_000);
  });
});

describe('candidates: each deployment priced for the tier the request asks for', () => {
  // `tiered` lists a flex tier ($0.075 / $0.30 a Mtok: 75,000,000 and 300,000,000 n$ a million tokens); `plain` only the standard rates
  const prices: PriceList = (() => {
    const entries = [
      { model: 'tiered', pricing: { input_per_mtok: '0.15', output_per_mtok: '0.60', service_tiers: { flex: { input_per_mtok: '0.075', output_per_mtok: '0.30' } } } },
      { model: 'plain', pricing: { input_per_mtok: '0.15', output_per_mtok: '0.60' } },
    ];
    const state = decideCatalogPrices(initialPriceState, entries as never, new Date(0)).reduce(evolvePrices, initialPriceState);
    return { inForce: (model, at) => priceInForce(state.get(model) ?? [], at), version: () => undefined, history: () => [] };
  })();
  const model = (id: string, priceKeys: string[]) => ({ id, deployments: priceKeys.map((priceKey, index) => ({ id: `${id}#${index}`, priceKey }) as Deployment) }) as unknown as CatalogModel;
  const flex: ReserveEstimate = { worstCase: { version: 2, inputTokens: 10, outputTokens: 10 }, rateLimitTokens: 20, serviceTier: 'flex' } as ReserveEstimate;
  const priced = (candidates: CatalogModel[]) => priceCandidates(prices, candidates.map((each) => ({ model: each, estimate: flex })), NOW);

  it("leaves out a deployment or fallback whose price has no rates for the tier, and prices the others at the tier's", () => {
    const result = priced([model('a', ['tiered', 'plain']), model('b', ['plain', 'tiered'])]);
    expect(result.map(({ deployment, price }) => [deployment.id, price.serviceTier, String(price.pricing.outputPerMillion)])).to.deep.equal([
      ['a#0', 'flex', '300000000'],
      ['b#1', 'flex', '300000000'],
    ]);
  });

  it("refuses the request when the requested model's first deployment cannot price the tier, whatever the fallbacks can", () => {
    expect(() => priced([model('a', ['plain', 'tiered']), model('b', ['tiered'])])).to.throw().with.property('code', 'unsupported_service_tier');
  });
});
