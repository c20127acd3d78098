import { expect } from 'chai';
import { systemClock } from '../../../../src/clock.js';
import { embeddingsEndpoint } from '../../../../src/endpoints/embeddings/embeddings-endpoint.js';
import { chatEndpoint } from '../../../../src/endpoints/text/text-endpoints.js';
import { transcriptionsEndpoint } from '../../../../src/endpoints/transcriptions/transcriptions-endpoint.js';
import { receiveStep } from '../../../../src/pipeline/steps/receive-step.js';
import { ManualClock } from '../../../e2e/money-rules/money-rules-kit.js';
import { MemoryConnection } from '../../../support/memory-connection.js';

describe('pipeline step: receive', () => {
  it('says X-PII-Masking: off on a text endpoint before anything can fail, and nothing of masking elsewhere', () => {
    const text = new MemoryConnection();
    receiveStep(chatEndpoint, text, 'gen-1', systemClock);
    expect(text.headersSet.get('X-PII-Masking')).to.equal('off');
    const side = new MemoryConnection();
    receiveStep(embeddingsEndpoint, side, 'gen-2', systemClock);
    expect(side.headersSet.has('X-PII-Masking')).to.equal(false);
  });

  it("refuses a body declared over the endpoint's own limit with 413, before the body is read (the header already set)", () => {
    // 32 MiB on the text endpoints, 26 MiB on transcriptions
    const declared = new MemoryConnection({}, {}, 27 * 1024 * 1024);
    expect(() => receiveStep(transcriptionsEndpoint, declared, 'gen-3', systemClock)).to.throw().with.property('code', 'request_too_large');
    expect(declared.checkedLimit).to.equal(26 * 1024 * 1024);
    const text = new MemoryConnection({}, {}, 27 * 1024 * 1024);
    const stage = receiveStep(chatEndpoint, text, 'gen-4', systemClock);
    expect(text.checkedLimit).to.equal(32 * 1024 * 1024);
    expect(text.bodyReads).to.equal(0);
    expect(stage.requestId).to.equal('gen-4');
  });

  it("takes the request's time from the pipeline's clock", () => {
    const clock = new ManualClock('2026-11-26T23:59:59.000Z');
    expect(receiveStep(chatEndpoint, new MemoryConnection(), 'gen-5', clock).now.toISOString()).to.equal('2026-11-26T23:59:59.000Z');
  });
});
