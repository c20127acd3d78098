import { GatewayError } from '../errors/gateway-error.js';

/** The reason the transport aborts a call with when the provider's `timeoutMs` has passed. */
export class ProviderDeadlineExceeded extends Error {
  override name = 'ProviderDeadlineExceeded';
}

// undici's own timeouts (lib/core/errors.js); the connect timeout counts as "no answer in time" too
const TIMEOUT_CODES: ReadonlySet<string> = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
// a call made while close() drains the pools
const CLOSED_CODES: ReadonlySet<string> = new Set(['UND_ERR_CLOSED', 'UND_ERR_DESTROYED']);

export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

export function isTimeoutFailure(error: unknown): boolean {
  if (error instanceof ProviderDeadlineExceeded) return true;
  const code = errorCode(error);
  return code !== undefined && TIMEOUT_CODES.has(code);
}

/**
 * Our own failure to get an answer, in catalogue terms: too slow → 503 with Retry-After 1 (spec 7.3: safe to
 * retry); unreachable (refused, reset, DNS) or cut off mid-answer → 502 provider_error.
 */
export function gatewayErrorForTransportFailure(error: unknown, providerName: string, phase: 'answer' | 'body'): GatewayError {
  const code = errorCode(error);
  if (isTimeoutFailure(error)) {
    return new GatewayError('service_unavailable', `provider ${providerName} did not answer in time`, { retryAfterSeconds: 1, cause: error });
  }
  if (code !== undefined && CLOSED_CODES.has(code)) {
    return new GatewayError('service_unavailable', 'the gateway is shutting down', { retryAfterSeconds: 1, cause: error });
  }
  const detail = code ?? (error instanceof Error ? error.message : String(error));
  const what = phase === 'answer' ? 'could not be reached' : 'broke off its answer';
  return new GatewayError('provider_error', `provider ${providerName} ${what} (${detail})`, { cause: error });
}
