import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { CatalogError, loadCatalogFile, parseCatalog } from '../../../src/catalog/load-catalog.js';

const providers = `providers:
  openai: { kind: openai, base_url: "https://api.openai.com/v1", api_key_env: OPENAI_KEY }
`;

function load(models: string) {
  return parseCatalog(`${providers}models:\n${models}`, { source: 'test.yaml', env: { OPENAI_KEY: 'sk-test' } });
}

function loadError(models: string, document?: string): string {
  try {
    if (document !== undefined) parseCatalog(document, { source: 'test.yaml' });
    else load(models);
  } catch (error) {
    expect(error).to.be.instanceOf(CatalogError);
    return (error as Error).message;
  }
  expect.fail('the catalog loaded');
}

describe('catalog', () => {
  it('loads the example catalog shipped in ops/', async () => {
    const catalog = await loadCatalogFile('ops/catalog.example.yaml', {});
    expect(catalog.models.size).to.be.greaterThan(5);
    const categories = new Set([...catalog.models.values()].map((model) => model.category));
    expect([...categories].sort()).to.deep.equal(['embeddings', 'image', 'speech', 'text', 'video']);
    expect(catalog.providers.get('local')?.formats).to.deep.equal(['chat']);
    expect(catalog.providers.get('anthropic')?.formats).to.deep.equal(['messages']);
  });

  it('resolves defaults, prices in nanodollars and the provider key from the environment', () => {
    const catalog = load(`  - id: openai/gpt-4o-mini
    category: text
    pricing: { input_per_mtok: "0.15", output_per_mtok: "0.60" }`);
    const model = catalog.models.get('openai/gpt-4o-mini')!;
    expect(model.upstream).to.equal('gpt-4o-mini');
    expect(model.maxOutputTokens).to.equal(128_000);
    expect(model.pricing.inputPerMillion).to.equal(150_000_000n);
    expect(model.pricing.outputPerMillion).to.equal(600_000_000n);
    expect(model.provider.apiKey).to.equal('sk-test');
    expect(model.provider.formats).to.deep.equal(['chat', 'responses']);
  });

  it('refuses an undeclared provider, naming the entry', () => {
    const message = loadError(`  - id: mystery/model-x
    category: text
    pricing: { input_per_mtok: "1", output_per_mtok: "1" }`);
    expect(message).to.contain('models[0] (mystery/model-x)').and.to.contain('provider "mystery" is not declared');
  });

  it('refuses a duplicate id', () => {
    const entry = `  - id: openai/a
    category: embeddings
    pricing: { input_per_mtok: "1" }
`;
    expect(loadError(entry + entry)).to.contain('models[1] (openai/a)').and.to.contain('duplicate model id');
  });

  it('refuses a model without the prices of its category', () => {
    expect(loadError(`  - id: openai/t
    category: text
    pricing: { input_per_mtok: "1" }`)).to.contain('models[0] (openai/t)').and.to.contain('pricing.input_per_mtok and output_per_mtok');
    expect(loadError(`  - id: openai/i
    category: image
    pricing: {}`)).to.contain('pricing.per_image');
    expect(loadError(`  - id: openai/v
    category: video
    pricing: { per_video_second: "0.1" }`)).to.contain('video: {seconds, sizes}');
  });

  it('refuses a non-text model on a provider kind that offers text only, naming both', () => {
    const document = `providers:
  anthropic: { kind: anthropic, base_url: "https://api.anthropic.com" }
models:
  - id: anthropic/embedder
    category: embeddings
    pricing: { input_per_mtok: "1" }
`;
    expect(loadError('', document)).to.contain('models[0] (anthropic/embedder)').and.to.contain('providers of kind anthropic offer text models only');
  });

  it('refuses an unknown category and a malformed price', () => {
    expect(loadError(`  - id: openai/x
    category: music
    pricing: {}`)).to.contain('models[0] (openai/x).category');
    expect(loadError(`  - id: openai/x
    category: embeddings
    pricing: { input_per_mtok: 0.02 }`)).to.contain('pricing.input_per_mtok');
  });

  it('refuses an unknown provider kind and unparseable YAML', () => {
    expect(loadError('', 'providers:\n  p: { kind: grpc, base_url: "http://x" }\nmodels: [{}]')).to.contain('providers.p.kind');
    expect(loadError('', 'providers: [\n')).to.contain('YAML');
  });

  it('keeps the prices as written for the model list', () => {
    const text = readFileSync('ops/catalog.example.yaml', 'utf8');
    const model = parseCatalog(text, { source: 'example' }).models.get('openai/gpt-4o-mini')!;
    expect(model.pricingUsd).to.deep.include({ input_per_mtok: '0.15', output_per_mtok: '0.60' });
  });

  it('gives every text model a PII masking fee: its own, else the catalog\'s pii_masking_fee_usd, else $0.001', () => {
    const models = `models:
  - id: openai/a
    category: text
    pricing: { input_per_mtok: "1", output_per_mtok: "2" }
  - id: openai/b
    category: text
    pricing: { input_per_mtok: "1", output_per_mtok: "2", pii_masking_fee: "0.0005" }
  - id: openai/img
    category: image
    pricing: { per_image: "0.04" }
`;
    const byDefault = parseCatalog(`${providers}${models}`, { source: 'test.yaml' }).models;
    expect(byDefault.get('openai/a')!.pricing.piiMaskingFee).to.equal(1_000_000n);
    expect(byDefault.get('openai/a')!.pricingUsd.pii_masking_fee).to.equal('0.001');
    expect(byDefault.get('openai/b')!.pricing.piiMaskingFee).to.equal(500_000n);
    expect(byDefault.get('openai/img')!.pricing.piiMaskingFee).to.equal(undefined);
    const set = parseCatalog(`pii_masking_fee_usd: "0.0025"\n${providers}${models}`, { source: 'test.yaml' }).models;
    expect(set.get('openai/a')!.pricing.piiMaskingFee).to.equal(2_500_000n);
    expect(set.get('openai/b')!.pricing.piiMaskingFee).to.equal(500_000n);
    expect(loadError('', `pii_masking_fee_usd: "free"\n${providers}${models}`)).to.match(/pii_masking_fee_usd/);
    expect(loadError(`  - id: openai/img
    category: image
    pricing: { per_image: "0.04", pii_masking_fee: "0.001" }`)).to.match(/only a text model has a PII masking fee/);
  });
});
