import type { GatewayError } from './gateway-error.js';

/**
 * The two error bodies of spec 2.3. Which one a route uses is fixed by the route (messages vs the rest),
 * so the caller picks the renderer; nothing here looks at the request.
 */
export type ErrorStyle = 'openai' | 'messages';

/** `{error:{type, code, message, param}}`: every endpoint except /v1/messages. */
export function renderOpenAiError(error: GatewayError): object {
  return { error: { type: error.type, code: error.code, message: error.message, param: error.param ?? null } };
}

/** `{type:"error", error:{type, message}}`: /v1/messages. No code, except `key_revoked` (spec 2.3). */
export function renderMessagesError(error: GatewayError): object {
  const body: { type: string; message: string; code?: string } = { type: error.type, message: error.message };
  if (error.code === 'key_revoked') body.code = error.code;
  return { type: 'error', error: body };
}

export function renderError(error: GatewayError, style: ErrorStyle): object {
  return style === 'messages' ? renderMessagesError(error) : renderOpenAiError(error);
}
