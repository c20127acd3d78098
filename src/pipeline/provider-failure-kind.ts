import { isGatewayError } from '../errors/gateway-error.js';
import type { ProviderStreamFailure } from '../providers/provider-stream-error.js';
import { isTimeoutFailure } from '../providers/transport-failure.js';

/**
 * How a provider failed a request, in a few kinds an operator can alert on (the metrics count them per
 * provider): its own error status by class, no answer (`connection`, `timeout`, also when a stream broke
 * off mid-way), or an answer the gateway could not use (`invalid_answer`). The client leaving is not a
 * provider failure, nor is a fault of the gateway's own.
 */
export type ProviderFailureKind = 'status_4xx' | 'status_5xx' | 'connection' | 'timeout' | 'invalid_answer';

export function failureOfStatus(status: number): ProviderFailureKind | undefined {
  if (status >= 500) return 'status_5xx';
  if (status >= 400) return 'status_4xx';
  return undefined;
}

/** The kind of a call that ended without an answer; undefined when the error was not the provider's. */
export function failureOfError(error: unknown): ProviderFailureKind | undefined {
  if (!isGatewayError(error)) return undefined;
  if (error.code === 'service_unavailable') return isTimeoutFailure(error.cause) ? 'timeout' : undefined;
  if (error.code !== 'provider_error') return undefined;
  // a transport failure carries its cause; an answer the gateway could not read is its own finding
  return error.cause === undefined ? 'invalid_answer' : 'connection';
}

/** A stream that broke off after it started; the client's own abort is not counted. */
export function failureOfStream(failure: ProviderStreamFailure | undefined): ProviderFailureKind | undefined {
  if (failure === 'connection') return 'connection';
  if (failure === 'timeout') return 'timeout';
  return undefined;
}
