import express, { type Express, type RequestHandler, type Router } from 'express';
import { newRequestId } from '../ids/random-id.js';
import type { Logger } from '../logger.js';
import { errorMiddleware, routeNotFound } from './error-middleware.js';
import { healthRoutes, type ReadinessCheck } from './health-routes.js';
import { requestLog } from './request-log.js';
import type { RequestContext } from '../pipeline/request-context.js';

export interface AppDependencies {
  logger: Logger;
  readiness: readonly ReadinessCheck[];
  /** Feature routers, mounted in order after the health routes. */
  routers: readonly Router[];
}

/**
 * Every response carries a fresh `X-Request-Id` (`gen-…`); a client-sent value is ignored (spec 7.4).
 * It is set first, so even a 404 or a body-limit refusal carries it.
 */
const assignRequestId: RequestHandler = (_req, res, next) => {
  const context = res.locals as RequestContext;
  context.requestId = newRequestId();
  context.errorStyle = 'openai';
  res.setHeader('X-Request-Id', context.requestId);
  next();
};

export function createApp(dependencies: AppDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(assignRequestId);
  app.use(requestLog(dependencies.logger));
  app.use(healthRoutes(dependencies.readiness));
  for (const router of dependencies.routers) app.use(router);
  app.use(routeNotFound);
  app.use(errorMiddleware(dependencies.logger));
  return app;
}
