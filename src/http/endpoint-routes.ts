import type { IncomingMessage, ServerResponse } from 'node:http';
import { Router } from 'express';
import type { Logger } from '../logger.js';
import type { EndpointHandler } from '../pipeline/run-endpoint.js';
import { clientConnection } from './client-connection.js';
import { sendError } from './error-middleware.js';
import { requestContext, type RequestContext } from './request-context.js';

/**
 * Serves one model request through its endpoint's pipeline: the error style is the endpoint's from the
 * start (a 413 or a 401 is rendered as its clients expect), and the error the pipeline ends with, if any,
 * is rendered once the reservation is closed. The request log and the metrics see the request when
 * `context.handled` settles, with what the pipeline learned.
 */
export function serveEndpoint(handler: EndpointHandler, req: IncomingMessage, res: ServerResponse, context: RequestContext, logger: Logger): void {
  context.errorStyle = handler.errorStyle;
  if (handler.newRequestId) {
    // spec 7.4: the X-Request-Id of POST /v1/videos is the job's id
    context.requestId = handler.newRequestId();
    res.setHeader('X-Request-Id', context.requestId);
  }
  context.handled = handler.handle(clientConnection(req, res), context.requestId).then(({ record, error }) => {
    context.record = record;
    if (error !== undefined) sendError(error, req, res, context, logger);
  });
}

/**
 * The same handlers as express routes, for the spellings the front door does not take itself (express
 * matches paths without regard to case or a trailing slash): one behaviour for every spelling.
 */
export function endpointRoutes(handlers: ReadonlyMap<string, EndpointHandler>, logger: Logger): Router {
  const router = Router();
  for (const [route, handler] of handlers) router.post(route, (req, res) => serveEndpoint(handler, req, res, requestContext(res), logger));
  return router;
}
