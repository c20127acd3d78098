/**
 * The one error catalogue: every code the gateway answers with, its HTTP status and when it is used.
 * `error.type` follows from the status (spec section 7.1), so a code can never carry the wrong type.
 * Domain code throws `GatewayError(code)`; only the renderers turn it into HTTP.
 * test/unit/errors checks this list against the contract (docs/gateway-api.md) and the client guide.
 */
export interface ErrorDefinition {
  readonly status: 400 | 401 | 402 | 403 | 404 | 413 | 429 | 500 | 502 | 503;
  /** The default message; a thrower may give a more precise one. */
  readonly message: string;
}

export const errorCatalogue = {
  // 400: the request itself is wrong
  invalid_json: { status: 400, message: 'the request body is not valid JSON' },
  json_too_deep: { status: 400, message: 'the request body nests too deeply' },
  invalid_request: { status: 400, message: 'the request is invalid' },
  model_category_mismatch: { status: 400, message: 'this model cannot be used on this endpoint' },
  stateful_not_supported: { status: 400, message: 'stored responses and previous_response_id are not supported; send the full history' },
  invalid_pii_masking_header: { status: 400, message: 'X-PII-Masking must be one of on, off, true, false, 1, 0' },
  pii_masking_unsupported_endpoint: { status: 400, message: 'PII masking is not available on this endpoint' },
  unsupported_response_format: { status: 400, message: 'only response_format b64_json is supported' },
  image_streaming_unsupported: { status: 400, message: 'image generation cannot be streamed' },
  invalid_image_count: { status: 400, message: 'n must be an integer from 1 to 10' },
  unsupported_video_parameter: { status: 400, message: 'this video parameter is not supported by the model' },
  invalid_seconds: { status: 400, message: 'seconds must be a number of seconds' },
  missing_prompt: { status: 400, message: 'prompt is required' },
  missing_model: { status: 400, message: 'model is required' },
  invalid_multipart: { status: 400, message: 'the multipart body cannot be parsed' },
  invalid_space: { status: 400, message: 'X-Service-Space does not name a space of this organization' },
  unsupported_service_tier: { status: 400, message: 'the catalog has no price for this service_tier on this model' },
  // 401
  invalid_api_key: { status: 401, message: 'the API key is missing, invalid, revoked or expired' },
  key_revoked: { status: 401, message: 'the API key was revoked while the request ran' },
  invalid_admin_token: { status: 401, message: 'the admin token is missing or wrong' },
  // 402
  insufficient_funds: { status: 402, message: 'organization balance insufficient for this request' },
  key_limit_exceeded: { status: 402, message: 'spending limit of this API key is exceeded' },
  spend_limit_exceeded: { status: 402, message: 'spending limit is exceeded' },
  request_cost_cap_exceeded: { status: 402, message: 'the request can cost more than its cost cap' },
  // 403
  model_not_allowed: { status: 403, message: 'this API key may not use this model' },
  pii_masking_not_enabled: { status: 403, message: 'PII masking is not enabled for this organization' },
  account_blocked: { status: 403, message: 'the organization is blocked' },
  csrf_check_failed: { status: 403, message: 'a console call that changes something needs the X-Console-CSRF header and a same-origin Origin' },
  // 404
  model_not_found: { status: 404, message: 'the model is not in the catalog' },
  video_not_found: { status: 404, message: 'the video job does not exist' },
  route_not_found: { status: 404, message: 'no such route' },
  resource_not_found: { status: 404, message: 'no such resource' },
  // 4xx about state
  video_not_ready: { status: 400, message: 'the video job has not finished' },
  video_cancel_unsupported: { status: 400, message: 'the video job was already passed to the provider and cannot be cancelled' },
  // 413
  request_too_large: { status: 413, message: 'the request body is too large' },
  // 429
  rate_limit_exceeded: { status: 429, message: 'rate limit exceeded' },
  // 5xx
  internal_error: { status: 500, message: 'internal error' },
  provider_error: { status: 502, message: 'the provider could not be reached or failed' },
  service_unavailable: { status: 503, message: 'the service is temporarily unavailable' },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof errorCatalogue;

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'insufficient_quota_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'api_error';

/**
 * Spec 7.1: the type is a function of the status; the one table for the gateway's own errors and for
 * provider errors shown to a client (any status outside the table is server-side).
 */
export function errorTypeForStatus(status: number): ErrorType {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 402:
      return 'insufficient_quota_error';
    case 403:
      return 'permission_error';
    case 429:
      return 'rate_limit_error';
  }
  return status >= 400 && status < 500 ? 'invalid_request_error' : 'api_error';
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(errorCatalogue, value);
}
