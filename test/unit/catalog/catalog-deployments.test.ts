import { expect } from 'chai';
import { CatalogError, parseCatalog } from '../../../src/catalog/load-catalog.js';

const providers = `providers:
  openai: { kind: openai, base_url: "https://api.openai.com/v1" }
  azure: { kind: openai, base_url: "https://azure.example/v1" }
  anthropic: { kind: anthropic, base_url: "https://api.anthropic.com" }
`;
const MINI = `  - id: openai/gpt-4o-mini
    category: text
    pricing: { input_per_mtok: "0.15", output_per_mtok: "0.60" }
`;

const load = (models: string) => parseCatalog(`${providers}models:\n${models}`, { source: 'test.yaml' });

function loadError(models: string): string {
  try {
    load(models);
  } catch (error) {
    expect(error).to.be.instanceOf(CatalogError);
    return (error as Error).message;
  }
  return expect.fail('the catalog loaded');
}

describe('catalog: deployments and fallbacks', () => {
  it('gives a model written without deployments one, at the provider its id names, id <model>#0', () => {
    const model = load(MINI).models.get('openai/gpt-4o-mini')!;
    expect(model.deployments.map(({ id, provider, upstream, weight, priceKey }) => ({ id, provider: provider.name, upstream, weight, priceKey }))).to.deep.equal([
      { id: 'openai/gpt-4o-mini#0', provider: 'openai', upstream: 'gpt-4o-mini', weight: 1, priceKey: 'openai/gpt-4o-mini' },
    ]);
    expect(model.fallbacks).to.deep.equal([]);
    expect(model.retry, 'one attempt: a model written as before is not retried').to.deep.equal({ maxAttempts: 1, budgetMs: 30_000, initialBackoffMs: 200, maxBackoffMs: 5_000, cooldownAfterFailures: 3, cooldownMs: 30_000 });
  });

  it('reads deployments by weight, named or numbered, and prices one with rates of its own under its id', () => {
    const catalog = load(`  - id: openai/gpt-4o-mini
    category: text
    pricing: { input_per_mtok: "0.15", output_per_mtok: "0.60" }
    deployments:
      - { provider: openai, weight: 3 }
      - { id: eu, provider: azure, upstream: mini-eu, weight: 1, pricing: { input_per_mtok: "0.20", output_per_mtok: "0.80" } }
    retry: { max_attempts: 4, cooldown_ms: 1000 }
`);
    const model = catalog.models.get('openai/gpt-4o-mini')!;
    expect(model.deployments.map(({ id, provider, upstream, weight, priceKey }) => ({ id, provider: provider.name, upstream, weight, priceKey }))).to.deep.equal([
      { id: 'openai/gpt-4o-mini#0', provider: 'openai', upstream: 'gpt-4o-mini', weight: 3, priceKey: 'openai/gpt-4o-mini' },
      { id: 'openai/gpt-4o-mini#eu', provider: 'azure', upstream: 'mini-eu', weight: 1, priceKey: 'openai/gpt-4o-mini#eu' },
    ]);
    // a text deployment's own rates carry the catalog's masking fee, as the model's do
    expect(model.deployments[1]!.pricingUsd).to.deep.equal({ input_per_mtok: '0.20', output_per_mtok: '0.80', pii_masking_fee: '0.001' });
    expect(model.retry.maxAttempts).to.equal(4);
    expect(model.retry.cooldownMs).to.equal(1000);
    expect(model.provider.name, "the model's own provider is its first deployment's").to.equal('openai');
  });

  it('refuses a weight of zero or below, an unknown provider and a duplicate deployment id', () => {
    expect(loadError(`  - id: openai/m
    category: text
    pricing: { input_per_mtok: "1", output_per_mtok: "1" }
    deployments: [{ provider: openai, weight: 0 }]
`)).to.equal('catalog test.yaml: models[0] (openai/m).deployments[0].weight: a weight must be a number above zero');
    expect(loadError(`  - id: openai/m
    category: text
    pricing: { input_per_mtok: "1", output_per_mtok: "1" }
    deployments: [{ provider: openai, weight: -2 }]
`)).to.match(/weight: a weight must be a number above zero$/);
    expect(loadError(`  - id: openai/m
    category: text
    pricing: { input_per_mtok: "1", output_per_mtok: "1" }
    deployments: [{ provider: nowhere }]
`)).to.equal('catalog test.yaml: models[0] (openai/m).deployments[0]: provider "nowhere" is not declared under providers');
    expect(loadError(`  - id: openai/m
    category: text
    pricing: { input_per_mtok: "1", output_per_mtok: "1" }
    deployments: [{ id: a, provider: openai }, { id: a, provider: azure }]
`)).to.equal('catalog test.yaml: models[0] (openai/m).deployments[1]: duplicate deployment id "openai/m#a"');
  });

  it("refuses a deployment's own pricing that lacks what its category needs", () => {
    expect(loadError(`  - id: openai/m
    category: text
    pricing: { input_per_mtok: "1", output_per_mtok: "1" }
    deployments: [{ provider: openai, pricing: { input_per_mtok: "1" } }]
`)).to.equal('catalog test.yaml: models[0] (openai/m).deployments[0]: a text model needs pricing.input_per_mtok and output_per_mtok');
  });

  it('refuses a fallback naming an unknown model, itself, or a model of another category', () => {
    expect(loadError(`${MINI}    fallbacks: [openai/nope]
`)).to.equal('catalog test.yaml: model openai/gpt-4o-mini: fallbacks[0]: "openai/nope" is not a model of the catalog');
    expect(loadError(`${MINI}    fallbacks: [openai/gpt-4o-mini]
`)).to.equal('catalog test.yaml: model openai/gpt-4o-mini: fallbacks[0]: a model cannot be its own fallback');
    expect(loadError(`${MINI}    fallbacks: [openai/embed]
  - id: openai/embed
    category: embeddings
    pricing: { input_per_mtok: "0.02" }
`)).to.equal('catalog test.yaml: model openai/gpt-4o-mini: fallbacks[0]: "openai/embed" is an embeddings model; a fallback of a text model must be a text model');
  });

  it('refuses deployments and fallbacks on a video model: a job is submitted once', () => {
    expect(loadError(`  - id: openai/sora
    category: video
    pricing: { per_video_second: "0.10" }
    video: { seconds: [4], sizes: ["1280x720"] }
    deployments: [{ provider: openai }, { provider: azure }]
`)).to.equal('catalog test.yaml: models[0] (openai/sora): a video model has one deployment and no fallbacks: a job is submitted once, and polled where it was submitted');
  });

  it('accepts a fallback of the same category, served elsewhere', () => {
    const catalog = load(`${MINI}    fallbacks: [anthropic/claude]
  - id: anthropic/claude
    category: text
    pricing: { input_per_mtok: "3", output_per_mtok: "15" }
`);
    expect(catalog.models.get('openai/gpt-4o-mini')!.fallbacks).to.deep.equal(['anthropic/claude']);
  });
});
