import express, { type Express, type RequestHandler, type Router } from 'express';
import type { Logger } from '../logger.js';
import { errorMiddleware, routeNotFound } from './error-middleware.js';
import { healthRoutes, type ReadinessCheck } from './health-routes.js';
import { newRequestContext, type RequestObserver } from './request-context.js';
import { watchRequests } from './request-watch.js';

export interface AppDependencies {
  logger: Logger;
  readiness: readonly ReadinessCheck[];
  /** What sees every request once it is over: the request log, the metrics. */
  observers: readonly RequestObserver[];
  /** Feature routers, mounted in order after the health routes. */
  routers: readonly Router[];
}

/**
 * Every response carries a fresh `X-Request-Id` (`gen-…`); a client-sent value is ignored (spec 7.4).
 * It is set first, so even a 404 or a body-limit refusal carries it.
 */
const assignRequestId: RequestHandler = (_req, res, next) => {
  const context = Object.assign(res.locals, newRequestContext());
  res.setHeader('X-Request-Id', context.requestId);
  next();
};

/** The routes express serves: everything but the model endpoints' exact paths (src/http/front-door.ts). */
export function createApp(dependencies: AppDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(assignRequestId);
  app.use(watchRequests(dependencies.observers, dependencies.logger));
  app.use(healthRoutes(dependencies.readiness));
  for (const router of dependencies.routers) app.use(router);
  app.use(routeNotFound);
  app.use(errorMiddleware(dependencies.logger));
  return app;
}
