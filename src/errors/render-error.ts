import type { ErrorType } from './error-catalogue.js';

/**
 * The two error bodies of spec 2.3. Which one a route uses is fixed by the route (messages vs the rest),
 * so the caller picks the renderer; nothing here looks at the request.
 */
export type ErrorStyle = 'openai' | 'messages';

/** What either style shows: a gateway error, or a provider's error in the gateway's vocabulary. */
export interface RenderableError {
  readonly type: ErrorType;
  readonly code: string;
  readonly message: string;
  readonly param?: string | undefined;
}

// Type aliases, not interfaces, so that the bodies are plain JSON objects to the format layer too.
export type OpenAiErrorBody = {
  error: { type: ErrorType; code: string; message: string; param: string | null };
};

export type MessagesErrorBody = {
  type: 'error';
  error: { type: ErrorType; message: string; code?: string };
};

/** `{error:{type, code, message, param}}`: every endpoint except /v1/messages. */
export function renderOpenAiError(error: RenderableError): OpenAiErrorBody {
  return { error: { type: error.type, code: error.code, message: error.message, param: error.param ?? null } };
}

/** `{type:"error", error:{type, message}}`: /v1/messages. No code, except `key_revoked` (spec 2.3). */
export function renderMessagesError(error: RenderableError): MessagesErrorBody {
  const body: MessagesErrorBody['error'] = { type: error.type, message: error.message };
  if (error.code === 'key_revoked') body.code = error.code;
  return { type: 'error', error: body };
}

export function renderError(error: RenderableError, style: ErrorStyle): OpenAiErrorBody | MessagesErrorBody {
  return style === 'messages' ? renderMessagesError(error) : renderOpenAiError(error);
}
