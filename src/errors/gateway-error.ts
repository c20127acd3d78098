import { errorCatalogue, errorTypeForStatus, type ErrorCode, type ErrorType } from './error-catalogue.js';

export interface GatewayErrorOptions {
  /** Seconds the client should wait (429, some 5xx); sent as `Retry-After`. */
  retryAfterSeconds?: number;
  /** The request field at fault, when there is one. */
  param?: string;
  cause?: unknown;
}

/** The only error domain code throws. It names a catalogue code, never an HTTP status. */
export class GatewayError extends Error {
  override name = 'GatewayError';
  readonly status: number;
  readonly type: ErrorType;
  readonly retryAfterSeconds: number | undefined;
  readonly param: string | undefined;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    options: GatewayErrorOptions = {},
  ) {
    super(message ?? errorCatalogue[code].message, { cause: options.cause });
    const definition = errorCatalogue[code];
    this.status = definition.status;
    this.type = errorTypeForStatus(definition.status);
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.param = options.param;
  }
}

export function isGatewayError(error: unknown): error is GatewayError {
  return error instanceof GatewayError;
}
