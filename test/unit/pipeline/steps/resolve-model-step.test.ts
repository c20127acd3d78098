import { expect } from 'chai';
import type { JsonValue } from '../../../../src/formats/json-value.js';
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

  describe("the request's fallbacks", () => {
    const withFallbacks = (fallbacks: JsonValue, models: string[] | null = null) =>
      parseStep(bodyRead(chatEndpoint, { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], fallbacks }, testCaller({ models })));

    it('takes the field out of the body and makes the models the candidates after the requested one', async () => {
      const parsed = withFallbacks(['local/llama', 'anthropic/claude-sonnet-4-5']);
      expect(parsed.body, 'never sent to a provider').to.not.have.property('fallbacks');
      const stage = resolveModelStep({ catalog: await testCatalog() }, parsed);
      expect(stage.candidates.map((model) => model.id)).to.deep.equal(['openai/gpt-4o-mini', 'local/llama', 'anthropic/claude-sonnet-4-5']);
    });

    it('refuses a malformed list (400), an unknown model (404), another category (400) and a model the key may not use (403)', async () => {
      const deps = { catalog: await testCatalog() };
      expect(() => withFallbacks('local/llama')).to.throw().with.property('param', 'fallbacks');
      expect(() => withFallbacks(['a', 'b', 'c', 'd', 'e', 'f'])).to.throw().with.property('code', 'invalid_request');
      expect(() => resolveModelStep(deps, withFallbacks(['openai/nope']))).to.throw().with.property('code', 'model_not_found');
      expect(() => resolveModelStep(deps, withFallbacks(['openai/text-embedding-3-small']))).to.throw().with.property('code', 'model_category_mismatch');
      expect(() => resolveModelStep(deps, withFallbacks(['local/llama'], ['openai/gpt-4o-mini']))).to.throw().with.property('code', 'model_not_allowed');
    });
  });
});
