import { errorTypeForStatus, type ErrorType } from '../../errors/error-catalogue.js';
import type { GatewayError } from '../../errors/gateway-error.js';

/**
 * An error to show the client in its format: a provider error read from any format, or a gateway error
 * (e.g. `key_revoked`) that must end a stream. `type` uses the gateway's vocabulary (spec 7.1) so a client
 * sees the same types whatever provider served it.
 */
export interface CanonicalError {
  readonly status: number;
  readonly type: ErrorType;
  /** The stable code of spec 7.2 (`provider_error` for provider-side failures). */
  readonly code: string;
  readonly message: string;
  readonly param?: string;
  /** The provider's own type or code, for logs. */
  readonly providerType?: string;
}

export function providerError(status: number, message: string, providerType?: string): CanonicalError {
  return {
    status,
    type: errorTypeForStatus(status),
    code: 'provider_error',
    message,
    ...(providerType === undefined ? {} : { providerType }),
  };
}

export function errorFromGatewayError(error: GatewayError): CanonicalError {
  return {
    status: error.status,
    type: error.type,
    code: error.code,
    message: error.message,
    ...(error.param === undefined ? {} : { param: error.param }),
  };
}

/** A provider stream that ended without its terminal event. */
export function truncatedStreamError(): CanonicalError {
  return providerError(502, 'the provider stream ended before the answer was complete');
}
