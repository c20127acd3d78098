import type { Response } from 'express';
import { newRequestId } from '../ids/random-id.js';
import type { ErrorStyle } from '../errors/render-error.js';
import type { RequestRecord } from '../pipeline/request-record.js';

/**
 * What the gateway keeps about one request: created when the request arrives (src/http/front-door.ts),
 * passed to the endpoint's handler, and kept in `res.locals` for the routes express serves.
 */
export interface RequestContext {
  requestId: string;
  /** Which error body the route answers with; `openai` unless the route says otherwise. */
  errorStyle: ErrorStyle;
  /** The raw request body (POST, PUT, PATCH), read within the body limit; empty when none was sent. */
  body?: Buffer;
  /** What the pipeline learned about a model request, for its log line (request-log.ts) and the metrics (src/metrics). */
  record?: RequestRecord;
  /** Settles when the pipeline is done with the request, the reservation closed (after the answer was sent). */
  handled?: Promise<void>;
}

/** A fresh request id (`gen-…`, spec 7.4: a client-sent id is ignored); errors in the OpenAI style until a route says otherwise. */
export function newRequestContext(): RequestContext {
  return { requestId: newRequestId(), errorStyle: 'openai' };
}

/** The context of a request served by express (set by the app's first middleware). */
export function requestContext(res: Response): RequestContext {
  return res.locals as RequestContext;
}

/** One request once its answer is over (sent, or the client left), with what the pipeline learned. */
export interface EndedRequest {
  readonly method: string;
  /** The URL's path, without the query. */
  readonly path: string;
  readonly context: RequestContext;
  /** The answer's status (as set, even when the client left before it was sent: see `headersSent`). */
  readonly statusCode: number;
  readonly headersSent: boolean;
  /** Whether the whole answer was written. */
  readonly completed: boolean;
  /** `performance.now()` when the request arrived, and when its connection closed or its answer ended. */
  readonly startedAt: number;
  readonly closedAt: number;
}

/** Sees each request once, after the pipeline is done with it (its reservation closed): the request log, the metrics. */
export type RequestObserver = (request: EndedRequest) => void;
