import { expect } from 'chai';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { failureOfError, failureOfStatus, failureOfStream } from '../../../src/pipeline/provider-failure-kind.js';
import { gatewayErrorForTransportFailure, ProviderDeadlineExceeded } from '../../../src/providers/transport-failure.js';

/** The kinds `gateway_provider_errors_total` counts, from the errors the transport really raises. */
describe('provider failure kinds', () => {
  const socketError = (code: string) => Object.assign(new Error(code), { code });

  it('classes a provider’s own error status, and nothing below 400', () => {
    expect([200, 399, 400, 429, 499, 500, 503].map(failureOfStatus)).to.deep.equal([undefined, undefined, 'status_4xx', 'status_4xx', 'status_4xx', 'status_5xx', 'status_5xx']);
  });

  it('tells an unreachable provider from a slow one', () => {
    expect(failureOfError(gatewayErrorForTransportFailure(socketError('ECONNREFUSED'), 'openai', 'answer'))).to.equal('connection');
    expect(failureOfError(gatewayErrorForTransportFailure(socketError('ECONNRESET'), 'openai', 'body'))).to.equal('connection');
    expect(failureOfError(gatewayErrorForTransportFailure(socketError('UND_ERR_HEADERS_TIMEOUT'), 'openai', 'answer'))).to.equal('timeout');
    expect(failureOfError(gatewayErrorForTransportFailure(new ProviderDeadlineExceeded('deadline'), 'openai', 'answer'))).to.equal('timeout');
  });

  it('counts an answer the gateway could not use, but not its own faults or shutdown', () => {
    expect(failureOfError(new GatewayError('provider_error', 'the provider answered with a body that is not JSON'))).to.equal('invalid_answer');
    expect(failureOfError(gatewayErrorForTransportFailure(socketError('UND_ERR_CLOSED'), 'openai', 'answer')), 'the gateway shutting down').to.equal(undefined);
    expect(failureOfError(new GatewayError('service_unavailable', 'a store is down'))).to.equal(undefined);
    expect(failureOfError(new TypeError('a bug'))).to.equal(undefined);
  });

  it('counts a stream that broke off, not one the client left', () => {
    expect([failureOfStream('connection'), failureOfStream('timeout'), failureOfStream('aborted'), failureOfStream(undefined)]).to.deep.equal(['connection', 'timeout', undefined, undefined]);
  });
});
