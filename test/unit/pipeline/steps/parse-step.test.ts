import { expect } from 'chai';
import { imagesEndpoint } from '../../../../src/endpoints/images/images-endpoint.js';
import { chatEndpoint } from '../../../../src/endpoints/text/text-endpoints.js';
import { parseStep } from '../../../../src/pipeline/steps/parse-step.js';
import { bodyRead } from '../../../support/pipeline-stages.js';

describe('pipeline step: parse', () => {
  it("turns the body into the endpoint's typed request", () => {
    const stage = parseStep(bodyRead(chatEndpoint, { model: 'openai/gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }));
    expect(stage.request.model).to.equal('openai/gpt-4o-mini');
    expect(stage.request.maxOutputTokens).to.equal(50);
  });

  it('refuses a bad body with the 400 the endpoint names, with the field at fault', () => {
    expect(() => parseStep(bodyRead(chatEndpoint, { model: 'openai/gpt-4o-mini', messages: [], n: 0 }))).to.throw().with.property('status', 400);
    expect(() => parseStep(bodyRead(imagesEndpoint, { model: 'openai/gpt-image-1', prompt: 'x', n: 11 }))).to.throw().with.property('code', 'invalid_image_count');
  });
});
