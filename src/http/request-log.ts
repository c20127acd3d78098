import type { RequestHandler } from 'express';
import { formatUsd } from '../billing/money.js';
import type { Logger } from '../logger.js';
import { requestContext } from '../pipeline/request-context.js';

const UNLOGGED_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);
const RESERVATION_ENDS = { settle: 'settled', release: 'released', cut_off: 'cut_off' } as const;

/**
 * One structured line per request when its answer ends (or the client leaves): request id, route, status,
 * and what the pipeline learned — key id (never the secret), organization, space, model, how the
 * reservation ended, usage, cost, the provider's time and the gateway's own (`overheadMs`). Never a
 * header or a message's contents. Probes are not logged. At `info`; `LOG_LEVEL=warn` turns it off.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (UNLOGGED_PATHS.has(req.path) || !logger.isLevelEnabled('info')) return next();
    const started = performance.now();
    res.once('close', async () => {
      const context = requestContext(res);
      // the answer may be out before the reservation is closed: the line waits for the cost
      await context.handled;
      const record = context.record ?? {};
      const durationMs = performance.now() - started;
      logger.info(
        {
          requestId: context.requestId,
          method: req.method,
          path: req.path,
          status: res.statusCode,
          completed: res.writableFinished,
          ...(record.endpoint === undefined ? {} : { endpoint: record.endpoint }),
          ...(record.keyId === undefined ? {} : { keyId: record.keyId, orgId: record.orgId, spaceId: record.spaceId }),
          ...(record.model === undefined ? {} : { model: record.model }),
          ...(record.closing === undefined ? {} : { reservation: RESERVATION_ENDS[record.closing.kind] }),
          ...(record.closing === undefined || record.closing.kind === 'release' ? {} : { usage: record.closing.usage }),
          ...(record.cost === undefined ? {} : { costUsd: formatUsd(record.cost) }),
          durationMs: round(durationMs),
          ...(record.providerMs === undefined ? {} : { providerMs: round(record.providerMs), overheadMs: round(durationMs - record.providerMs) }),
        },
        'request',
      );
    });
    next();
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
