import { expect } from 'chai';
import { embeddingsEndpoint } from '../../../../src/endpoints/embeddings/embeddings-endpoint.js';
import { chatEndpoint } from '../../../../src/endpoints/text/text-endpoints.js';
import { parseStep } from '../../../../src/pipeline/steps/parse-step.js';
import { resolveModelStep } from '../../../../src/pipeline/steps/resolve-model-step.js';
import { bodyRead, testCaller, testCatalog } from '../../../support/pipeline-stages.js';

describe('pipeline step: model resolved', () => {
  const chat = (model: string, models: string[] | null = null) =>
    parseStep(bodyRead(chatEndpoint, { model, messages: [{ role: 'user', content: 'hi' }] }, testCaller({ models })));

  it('finds the catalog model the request names', async () => {
    const stage = resolveModelStep({ catalog: await testCatalog() }, chat('openai/gpt-4o-mini'));
    expect(stage.model.id).to.equal('openai/gpt-4o-mini');
    expect(stage.model.provider.name).to.equal('openai');
  });

  it('refuses an unknown model (404), a category the endpoint does not serve (400) and a model the key may not use (403)', async () => {
    const deps = { catalog: await testCatalog() };
    expect(() => resolveModelStep(deps, chat('openai/nope'))).to.throw().with.property('code', 'model_not_found');
    expect(() => resolveModelStep(deps, chat('openai/sora-2'))).to.throw().with.property('code', 'model_category_mismatch');
    const embeddings = parseStep(bodyRead(embeddingsEndpoint, { model: 'openai/gpt-4o-mini', input: 'x' }));
    expect(() => resolveModelStep(deps, embeddings)).to.throw().with.property('message', 'openai/gpt-4o-mini is a text model; /v1/embeddings serves embeddings models');
    expect(() => resolveModelStep(deps, chat('openai/gpt-4o-mini', ['anthropic/claude-sonnet-4-5']))).to.throw().with.property('code', 'model_not_allowed');
  });
});
