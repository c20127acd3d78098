import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { GatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../logger.js';
import { requestContext } from '../pipeline/request-context.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import { refreshScrapedMetrics, type MetricsSources } from './metrics-sources.js';

export interface MetricsRouteDependencies extends MetricsSources {
  readonly metrics: GatewayMetrics;
  /** The admin token and METRICS_TOKEN, where set; with neither, every scrape is refused (as the admin API is). */
  readonly tokens: ReadonlyArray<string | undefined>;
}

/**
 * `GET /metrics` (Prometheus text format), and the observer that feeds the request series from each
 * request's record once the pipeline is done with it — the record the request log reads, so the log line
 * and the metrics never disagree. Mount it before the routes it observes.
 */
export function metricsRoutes(deps: MetricsRouteDependencies): Router {
  const router = Router();
  router.use(observeRequests(deps.metrics, deps.logger));
  router.get('/metrics', requireMetricsToken(deps.tokens), async (_req, res) => {
    await refreshScrapedMetrics(deps.metrics, deps);
    const text = await deps.metrics.exposition();
    res.setHeader('Content-Type', deps.metrics.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(text);
  });
  return router;
}

function observeRequests(metrics: GatewayMetrics, logger: Logger): RequestHandler {
  return (_req, res, next) => {
    const started = performance.now();
    res.once('close', () => {
      // measured like the request log's durationMs: until the answer is out, not until the settle is written
      const durationMs = performance.now() - started;
      const context = requestContext(res);
      const observe = () => {
        const record = context.record;
        if (record?.endpoint === undefined) return;
        metrics.observeRequest({
          record,
          status: res.headersSent ? res.statusCode : 499,
          durationMs,
          firstEventMs: record.firstEventAt === undefined ? undefined : record.firstEventAt - started,
        });
      };
      // a fault in the metrics must never take the process down with an unhandled rejection
      Promise.resolve(context.handled)
        .then(observe)
        .catch((error: unknown) => logger.warn({ err: error, requestId: context.requestId }, 'could not record the metrics of a request'));
    });
    next();
  };
}

/** Bearer METRICS_TOKEN or the admin token, compared in constant time; refused in the admin API's style. */
function requireMetricsToken(tokens: ReadonlyArray<string | undefined>): RequestHandler {
  const accepted = tokens.filter((token): token is string => Boolean(token)).map(digest);
  return (req, _res, next) => {
    const header = req.get('authorization') ?? '';
    const presented = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    const presentedDigest = digest(presented);
    // every token is compared, so the time taken does not tell which one nearly matched
    let matched = false;
    for (const expected of accepted) matched = timingSafeEqual(presentedDigest, expected) || matched;
    if (!presented || !matched) {
      next(new GatewayError('invalid_admin_token', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN> or the admin token'));
      return;
    }
    next();
  };
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
