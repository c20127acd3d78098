import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { GatewayError } from '../errors/gateway-error.js';
import type { RequestObserver } from '../http/request-context.js';
import { clientAddress, type SignInThrottle } from '../http/sign-in-throttle.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import { refreshScrapedMetrics, type MetricsSources } from './metrics-sources.js';

export interface MetricsRouteDependencies extends MetricsSources {
  readonly metrics: GatewayMetrics;
  /** The admin token and METRICS_TOKEN, where set; with neither, every scrape is refused (as the admin API is). */
  readonly tokens: ReadonlyArray<string | undefined>;
  /** Counts and throttles wrong tokens per client address, with the admin API's (src/http/sign-in-throttle.ts). */
  readonly signIns?: SignInThrottle;
}

/** `GET /metrics` (Prometheus text format); the request series come from `requestMetrics`. */
export function metricsRoutes(deps: MetricsRouteDependencies): Router {
  const router = Router();
  router.get('/metrics', requireMetricsToken(deps.tokens, deps.signIns), async (_req, res) => {
    await refreshScrapedMetrics(deps.metrics, deps);
    const text = await deps.metrics.exposition();
    res.setHeader('Content-Type', deps.metrics.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(text);
  });
  return router;
}

/**
 * Feeds the request series from each request's record once the pipeline is done with it — the record the
 * request log reads, so the log line and the metrics never disagree.
 */
export function requestMetrics(metrics: GatewayMetrics): RequestObserver {
  return ({ context, statusCode, headersSent, startedAt, closedAt }) => {
    const record = context.record;
    if (record?.endpoint === undefined) return;
    metrics.observeRequest({
      record,
      status: headersSent ? statusCode : 499,
      // measured like the request log's durationMs: until the answer is out, not until the settle is written
      durationMs: closedAt - startedAt,
      firstEventMs: record.firstEventAt === undefined ? undefined : record.firstEventAt - startedAt,
    });
  };
}

/** Bearer METRICS_TOKEN or the admin token, compared in constant time; refused in the admin API's style. */
function requireMetricsToken(tokens: ReadonlyArray<string | undefined>, throttle: SignInThrottle | undefined): RequestHandler {
  const accepted = tokens.filter((token): token is string => Boolean(token)).map(digest);
  return (req, _res, next) => {
    const address = clientAddress(req);
    try {
      throttle?.check(address);
    } catch (error) {
      next(error);
      return;
    }
    const header = req.get('authorization') ?? '';
    const presented = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    const presentedDigest = digest(presented);
    // every token is compared, so the time taken does not tell which one nearly matched
    let matched = false;
    for (const expected of accepted) matched = timingSafeEqual(presentedDigest, expected) || matched;
    if (!presented || !matched) {
      throttle?.failed(address, 'metrics');
      next(new GatewayError('invalid_admin_token', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN> or the admin token'));
      return;
    }
    next();
  };
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
