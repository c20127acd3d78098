import express, { type Express, type RequestHandler, type Router } from 'express';
import { newRequestId } from '../ids/random-id.js';
import { DEFAULT_BODY_LIMIT, readBody, SPEECH_BODY_LIMIT } from './body-reader.js';
import type { Logger } from '../logger.js';
import { errorMiddleware, routeNotFound } from './error-middleware.js';
import { healthRoutes, type ReadinessCheck } from './health-routes.js';
import type { RequestContext } from './request-context.js';

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

/**
 * Reads the body of every request that has one into `res.locals.body` (a Buffer), within the limit of
 * its path; routes parse it once. Refusals happen here, before any route runs, so they cost nothing.
 */
const readRequestBody: RequestHandler = async (req, res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE') return next();
  const limit = req.path === '/v1/audio/transcriptions' ? SPEECH_BODY_LIMIT : DEFAULT_BODY_LIMIT;
  (res.locals as RequestContext).body = await readBody(req, limit);
  next();
};

export function createApp(dependencies: AppDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(assignRequestId);
  app.use(healthRoutes(dependencies.readiness));
  app.use(readRequestBody);
  for (const router of dependencies.routers) app.use(router);
  app.use(routeNotFound);
  app.use(errorMiddleware(dependencies.logger));
  return app;
}
