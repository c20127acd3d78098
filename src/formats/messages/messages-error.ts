import { renderMessagesError } from '../../errors/render-error.js';
import { isJsonObject, type JsonObject } from '../json-value.js';
import { providerError, type CanonicalError } from '../canonical/canonical-error.js';

/** [ANT-DOCS errors] type ↔ status (wire-formats.md 2.4); 529 `overloaded_error` arrives mid-stream too. */
const STATUS_OF_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** `{type:"error", error:{type, message}}` → canonical error. */
export function errorFromMessagesBody(body: unknown, status?: number): CanonicalError {
  const error = isJsonObject(body) && isJsonObject(body.error) ? body.error : {};
  const type = typeof error.type === 'string' ? error.type : undefined;
  const message = typeof error.message === 'string' ? error.message : 'the provider returned an error';
  return providerError(status ?? (type ? STATUS_OF_TYPE[type] : undefined) ?? 502, message, type);
}

/** Spec 2.3: `{type:"error", error:{type, message}}`, no code except `key_revoked`, as in an error answer. */
export function renderMessagesErrorBody(error: CanonicalError): JsonObject {
  return renderMessagesError(error);
}
