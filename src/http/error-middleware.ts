import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isConnectionFailure, STORE_RETRY_AFTER_SECONDS } from '../errors/connection-failure.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { renderError } from '../errors/render-error.js';
import type { Logger } from '../logger.js';
import { sendJson } from './json-reply.js';
import { requestContext, type RequestContext } from './request-context.js';
import { pathOf } from './request-watch.js';

/** Unknown routes answer 404 in the same error shape as everything else. */
export const routeNotFound: RequestHandler = (req, _res, next) => {
  req.resume(); // an unread body is drained, so the client can read the answer
  next(new GatewayError('route_not_found', `no route for ${req.method} ${req.path}`));
};

/**
 * The one place an error becomes an HTTP answer. A GatewayError is rendered as the catalogue says;
 * anything else is a bug of ours: logged with the request id, answered `500 internal_error`.
 */
export function sendError(error: unknown, req: IncomingMessage, res: ServerResponse, context: RequestContext, logger: Logger): void {
  const gatewayError = isGatewayError(error) ? error : (fromFrameworkError(error) ?? fromStoreOutage(error));
  if (!gatewayError) {
    logger.error({ err: error, requestId: context.requestId, path: pathOf(req.url) }, 'unhandled error');
  } else if (gatewayError.code === 'service_unavailable' && !isGatewayError(error)) {
    logger.warn({ err: error, requestId: context.requestId, path: pathOf(req.url) }, 'a store is unreachable');
  }
  const rendered = gatewayError ?? new GatewayError('internal_error');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (rendered.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(rendered.retryAfterSeconds));
  sendJson(res, rendered.status, renderError(rendered, context.errorStyle ?? 'openai'));
}

/** `sendError` for the routes express serves. */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => sendError(error, req, res, requestContext(res), logger);
}

/** Express raises its own errors for malformed URLs and the like; they are the client's mistakes. */
function fromFrameworkError(error: unknown): GatewayError | undefined {
  const status = (error as { status?: unknown; statusCode?: unknown })?.status ?? (error as { statusCode?: unknown })?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new GatewayError('invalid_request', (error as Error).message);
  }
  return undefined;
}

/** A store that cannot be reached is not a bug: the client may retry (src/errors/connection-failure.ts). */
function fromStoreOutage(error: unknown): GatewayError | undefined {
  if (!isConnectionFailure(error)) return undefined;
  return new GatewayError('service_unavailable', 'a store of the gateway cannot be reached; retry shortly', {
    retryAfterSeconds: STORE_RETRY_AFTER_SECONDS,
    cause: error,
  });
}
