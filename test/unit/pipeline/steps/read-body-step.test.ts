import { expect } from 'chai';
import { chatEndpoint } from '../../../../src/endpoints/text/text-endpoints.js';
import { readBodyStep, releaseBodyStep } from '../../../../src/pipeline/steps/read-body-step.js';
import { MemoryConnection } from '../../../support/memory-connection.js';
import { received, testCaller } from '../../../support/pipeline-stages.js';

describe('pipeline step: body read', () => {
  it('reads the body once, as the endpoint declares, and releases that same body', async () => {
    const body = { model: 'openai/gpt-4o-mini', messages: [] };
    const connection = new MemoryConnection({}, body);
    const stage = await readBodyStep({ ...received(chatEndpoint, connection), caller: testCaller(), masking: 'off' });
    expect(stage.body).to.equal(body);
    expect(connection.bodyReads).to.equal(1);
    await releaseBodyStep(stage);
    expect(connection.released).to.deep.equal([body]);
  });
});
