import { renderOpenAiError } from '../../errors/render-error.js';
import { isJsonObject, type JsonObject } from '../json-value.js';
import { providerError, type CanonicalError } from '../canonical/canonical-error.js';

/**
 * Status of an OpenAI-style error when only the body is known (mid-stream errors have no HTTP status).
 * OpenRouter puts the status in `error.code` as a number (wire-formats.md 6).
 */
function statusOfOpenAiError(error: JsonObject): number {
  if (typeof error.code === 'number' && error.code >= 400 && error.code < 600) return error.code;
  const kind = `${typeof error.type === 'string' ? error.type : ''} ${typeof error.code === 'string' ? error.code : ''}`;
  if (/rate_limit|insufficient_quota/.test(kind)) return 429;
  if (/authentication|invalid_api_key/.test(kind)) return 401;
  if (/permission/.test(kind)) return 403;
  if (/not_found/.test(kind)) return 404;
  if (/invalid_request|invalid_prompt|invalid_image|context_length/.test(kind)) return 400;
  if (/overloaded/.test(kind)) return 503;
  return 502;
}

/**
 * `{error:{message, type, param, code}}` (chat and responses, wire-formats.md 1.5), OpenRouter's
 * `{error:{code: number, message}}`, or the flat responses `error` event `{code, message, param}`.
 */
export function errorFromOpenAiBody(body: unknown, status?: number): CanonicalError {
  const error = isJsonObject(body) && isJsonObject(body.error) ? body.error : isJsonObject(body) ? body : {};
  const message = typeof error.message === 'string' ? error.message : 'the provider returned an error';
  const providerType = typeof error.type === 'string' ? error.type : typeof error.code === 'string' ? error.code : undefined;
  return providerError(status ?? statusOfOpenAiError(error), message, providerType);
}

/** The gateway's error body for every endpoint except messages (spec 2.3), as in an error answer. */
export function renderOpenAiErrorBody(error: CanonicalError): JsonObject {
  return renderOpenAiError(error);
}
