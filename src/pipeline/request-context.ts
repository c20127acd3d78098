import type { Response } from 'express';
import { newRequestId } from '../ids/random-id.js';
import type { Nanodollars } from '../billing/money.js';
import type { ErrorStyle } from '../errors/render-error.js';
import type { ProviderFailureKind } from './provider-failure-kind.js';
import type { Closing } from './settle-step.js';

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
  /** What the pipeline learned about the request, for its log line (src/http/request-log.ts) and the metrics (src/metrics). */
  record?: RequestRecord;
  /** Settles when the pipeline is done with the request, the reservation closed (after the answer was sent). */
  handled?: Promise<void>;
}

/** Who asked for what, and what it cost: never a secret, never a message's contents. */
export interface RequestRecord {
  endpoint?: string;
  keyId?: string;
  orgId?: string;
  spaceId?: string | null;
  model?: string;
  /** The catalog's name of the model's provider. */
  provider?: string;
  /** Which per-minute limit refused the request (429). */
  rateLimited?: 'requests' | 'tokens';
  /** How the provider failed, when it did (its own error status, or no usable answer). */
  providerFailure?: ProviderFailureKind;
  /** `performance.now()` when a stream's first event was written to the client. */
  firstEventAt?: number;
  /** How the reservation ended, with the usage it was closed on. */
  closing?: Closing;
  cost?: Nanodollars;
  /** Waiting for the provider: until its whole body arrived, or until its stream ended. */
  providerMs?: number;
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
