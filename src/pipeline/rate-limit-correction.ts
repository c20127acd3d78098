import type { PipelineDependencies } from './pipeline-dependencies.js';

/**
 * Replaces a request's admission estimate with the tokens it really used: 0 when it was refused or
 * released before the provider answered. A failure costs no money (the estimate stays counted until the
 * window moves past it, which errs toward the limit), but it is logged and counted, never dropped.
 */
export function correctRateLimit(deps: Pick<PipelineDependencies, 'rateLimiter' | 'counters' | 'logger'>, keyId: string, requestId: string, usedTokens: number): void {
  deps.rateLimiter.settle(keyId, requestId, usedTokens).catch((error: unknown) => {
    deps.counters.rateLimitSettleFailures++;
    deps.logger.warn({ err: error, requestId }, 'could not correct the rate-limit count of a request');
  });
}
