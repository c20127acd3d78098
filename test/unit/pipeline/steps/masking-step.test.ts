import { expect } from 'chai';
import { imagesEndpoint } from '../../../../src/endpoints/images/images-endpoint.js';
import { messagesEndpoint } from '../../../../src/endpoints/text/text-endpoints.js';
import { maskingStep } from '../../../../src/pipeline/steps/masking-step.js';
import { MemoryConnection } from '../../../support/memory-connection.js';
import { received, testCaller } from '../../../support/pipeline-stages.js';

describe('pipeline step: masking decided', () => {
  const text = (headers: Record<string, string>, piiMasking = false) => {
    const connection = new MemoryConnection(headers);
    return { connection, stage: { ...received(messagesEndpoint, connection), caller: testCaller({}, { piiMasking }) } };
  };

  it('is off without the header on an organization without the option, and says so in the answer', () => {
    const { connection, stage } = text({});
    expect(maskingStep(stage).masking).to.equal('off');
    expect(connection.headersSet.get('X-PII-Masking')).to.equal('off');
    for (const value of ['off', 'FALSE', '0']) expect(maskingStep(text({ 'X-PII-Masking': value }).stage).masking, value).to.equal('off');
  });

  it('applies masking asked for by the header, or by the organization without one, and says so', () => {
    for (const [headers, piiMasking] of [[{ 'X-PII-Masking': 'on' }, true], [{ 'X-PII-Masking': 'TRUE' }, true], [{ 'X-PII-Masking': '1' }, true], [{}, true]] as const) {
      const { connection, stage } = text(headers, piiMasking);
      expect(maskingStep(stage).masking, JSON.stringify(headers)).to.equal('applied');
      expect(connection.headersSet.get('X-PII-Masking')).to.equal('applied');
    }
    expect(maskingStep(text({ 'X-PII-Masking': 'off' }, true).stage).masking).to.equal('off');
  });

  it('refuses on without the option (403), and a value it does not know (400)', () => {
    expect(() => maskingStep(text({ 'X-PII-Masking': 'on' }).stage)).to.throw().with.property('code', 'pii_masking_not_enabled');
    expect(() => maskingStep(text({ 'X-PII-Masking': 'yes' }).stage)).to.throw().with.property('code', 'invalid_pii_masking_header');
  });

  it('on an endpoint with nothing to mask: off, an explicit on refused, no header in the answer', () => {
    const quiet = new MemoryConnection({ 'X-PII-Masking': 'off' });
    expect(maskingStep({ ...received(imagesEndpoint, quiet), caller: testCaller() }).masking).to.equal('off');
    expect(quiet.headersSet.has('X-PII-Masking')).to.equal(false);
    const asked = new MemoryConnection({ 'X-PII-Masking': 'on' });
    expect(() => maskingStep({ ...received(imagesEndpoint, asked), caller: testCaller({}, { piiMasking: true }) })).to.throw().with.property('code', 'pii_masking_unsupported_endpoint');
  });
});
