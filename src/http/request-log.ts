import { formatUsd } from '../billing/money.js';
import type { Logger } from '../logger.js';
import type { EndedRequest, RequestObserver } from './request-context.js';

const UNLOGGED_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);
const RESERVATION_ENDS = { settle: 'settled', release: 'released', cut_off: 'cut_off', handed_off: 'handed_to_job', not_recorded: 'not_recorded' } as const;

/**
 * One structured line per request when its answer ends (or the client leaves): request id, route, status,
 * and what the pipeline learned — key id (never the secret), organization, space, model, how the
 * reservation ended, usage, cost, the provider's time and the gateway's own (`overheadMs`). Never a
 * header or a message's contents. Probes are not logged. At `info`; `LOG_LEVEL=warn` turns it off (no observer).
 */
export function requestLog(logger: Logger): RequestObserver | undefined {
  if (!logger.isLevelEnabled('info')) return undefined;
  return (request) => {
    if (!UNLOGGED_PATHS.has(request.path)) logger.info(requestLine(request), 'request');
  };
}

/** The line's fields; the duration runs until the reservation is closed (the line waits for the cost). */
function requestLine({ method, path, context, statusCode, completed, startedAt }: EndedRequest): Record<string, unknown> {
  const record = context.record;
  const durationMs = performance.now() - startedAt;
  const line: Record<string, unknown> = { requestId: context.requestId, method, path, status: statusCode, completed };
  if (record === undefined) {
    line.durationMs = round(durationMs);
    return line;
  }
  if (record.endpoint !== undefined) line.endpoint = record.endpoint;
  if (record.keyId !== undefined) {
    line.keyId = record.keyId;
    line.orgId = record.orgId;
    line.spaceId = record.spaceId;
  }
  if (record.model !== undefined) line.model = record.model;
  if (record.deployment !== undefined) {
    line.deployment = record.deployment;
    line.attempts = record.attempts;
  }
  const closing = record.closing;
  if (closing !== undefined) {
    line.reservation = RESERVATION_ENDS[closing.kind];
    if (closing.kind === 'settle' || closing.kind === 'cut_off') line.usage = closing.usage;
  }
  if (record.cost !== undefined) line.costUsd = formatUsd(record.cost);
  line.durationMs = round(durationMs);
  if (record.providerMs !== undefined) {
    line.providerMs = round(record.providerMs);
    line.overheadMs = round(durationMs - record.providerMs);
  }
  return line;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
