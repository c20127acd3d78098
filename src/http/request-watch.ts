import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from '../logger.js';
import { requestContext, type EndedRequest, type RequestContext, type RequestObserver } from './request-context.js';

/**
 * Calls the observers once the answer is over and the pipeline has closed the reservation (the settle may
 * come after the answer is out). One `close` listener per request, whatever the number of observers.
 */
export function watchRequest(req: IncomingMessage, res: ServerResponse, context: RequestContext, observers: readonly RequestObserver[], logger: Logger): void {
  if (observers.length === 0) return;
  const startedAt = performance.now();
  res.once('close', () => {
    const closedAt = performance.now();
    const ended = (): void => {
      const request: EndedRequest = {
        method: req.method ?? 'GET',
        path: pathOf(req.url),
        context,
        statusCode: res.statusCode,
        headersSent: res.headersSent,
        completed: res.writableFinished,
        startedAt,
        closedAt,
      };
      for (const observe of observers) observe(request);
    };
    // an observer's fault must never take the process down with an unhandled rejection
    Promise.resolve(context.handled)
      .then(ended)
      .catch((error: unknown) => logger.warn({ err: error, requestId: context.requestId }, 'could not log or count a request'));
  });
}

/** The same for the routes express serves, whose context is in `res.locals`. */
export function watchRequests(observers: readonly RequestObserver[], logger: Logger): RequestHandler {
  return (req, res, next) => {
    watchRequest(req, res, requestContext(res), observers, logger);
    next();
  };
}

export function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
