import type { RequestListener } from 'node:http';
import type { Express } from 'express';
import type { Logger } from '../logger.js';
import type { EndpointHandler } from '../pipeline/run-endpoint.js';
import { serveEndpoint } from './endpoint-routes.js';
import { newRequestContext, type RequestObserver } from './request-context.js';
import { pathOf, watchRequest } from './request-watch.js';

export interface FrontDoorDependencies {
  /** `POST` path → handler: the model endpoints (src/pipeline/endpoint-handlers.ts). */
  readonly endpoints: ReadonlyMap<string, EndpointHandler>;
  /** Everything else: health, /v1/models, admin, console, metrics, 404s. */
  readonly app: Express;
  readonly observers: readonly RequestObserver[];
  readonly logger: Logger;
}

/**
 * The server's request listener. A model request (`POST` to an endpoint's exact path) goes straight to
 * its pipeline handler; express, whose per-request work (prototype swaps, the router's walk through
 * every mounted router, `res.json`) cost more CPU than the gateway's billing, serves the rest. Both ways
 * give the same answers: a request id on every response, the same error bodies, the same log line and
 * metrics (src/http/app.ts does the same for express's routes).
 */
export function frontDoor(deps: FrontDoorDependencies): RequestListener {
  const { endpoints, app, observers, logger } = deps;
  return (req, res) => {
    const handler = req.method === 'POST' ? endpoints.get(pathOf(req.url)) : undefined;
    if (handler === undefined) {
      app(req, res);
      return;
    }
    const context = newRequestContext();
    res.setHeader('X-Request-Id', context.requestId);
    watchRequest(req, res, context, observers, logger);
    serveEndpoint(handler, req, res, context, logger);
  };
}
