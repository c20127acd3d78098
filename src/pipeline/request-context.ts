import type { Response } from 'express';
import type { ErrorStyle } from '../errors/render-error.js';

/** What the gateway keeps about one request in `res.locals`. */
export interface RequestContext {
  requestId: string;
  /** Which error body the route answers with; `openai` unless the route says otherwise. */
  errorStyle: ErrorStyle;
  /** The raw request body (POST, PUT, PATCH), read within the body limit; empty when none was sent. */
  body?: Buffer;
}

export function requestContext(res: Response): RequestContext {
  return res.locals as RequestContext;
}
