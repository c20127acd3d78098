import { STORE_RETRY_AFTER_SECONDS } from '../errors/connection-failure.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../logger.js';
import { RateLimiterUnavailableError, type Admission, type RateLimiter, type RateLimits } from './rate-limiter.js';

/**
 * What a request gets while the shared limiter (Redis) cannot be reached, chosen by `REDIS_OUTAGE`:
 * - `fail-closed` (default): `503 service_unavailable` with `Retry-After`, before anything is reserved. No
 *   request runs unmetered, which is what a paid gateway owes the organizations whose limits it enforces.
 * - `fail-open`: this instance counts in its own memory until Redis returns. Limits then hold per
 *   instance instead of across all of them (N instances may admit up to N times a key's limit).
 * Each change of state is logged once (outage begins, outage ends), not once per request.
 */
export type RedisOutagePolicy = 'fail-closed' | 'fail-open';

export interface SharedRateLimiter extends RateLimiter {
  /** Whether its store can be reached now (checked before each request, without a round trip). */
  available(): boolean;
}

export class OutageAwareRateLimiter implements RateLimiter {
  private down = false;

  constructor(
    private readonly shared: SharedRateLimiter,
    private readonly policy: RedisOutagePolicy,
    /** Used while the shared limiter is down under `fail-open`. */
    private readonly local: RateLimiter,
    private readonly logger: Logger,
  ) {}

  async admit(subject: string, requestId: string, tokens: number, limits: RateLimits): Promise<Admission> {
    if (this.shared.available()) {
      try {
        const admission = await this.shared.admit(subject, requestId, tokens, limits);
        this.markUp();
        return admission;
      } catch (error) {
        if (!(error instanceof RateLimiterUnavailableError)) throw error;
        this.markDown(error);
      }
    } else {
      this.markDown(new RateLimiterUnavailableError('no connection'));
    }
    if (this.policy === 'fail-open') return this.local.admit(subject, requestId, tokens, limits);
    throw new GatewayError('service_unavailable', 'rate limits cannot be checked: Redis is unreachable; nothing was reserved or charged', {
      retryAfterSeconds: STORE_RETRY_AFTER_SECONDS,
    });
  }

  /**
   * Replaces the admission's estimate with what the request used, in whichever limiter admitted it (the
   * local one ignores request ids it never saw). A failure is the caller's to log: the estimate then
   * stays counted until the window moves past it, which errs toward the limit, never past it.
   */
  async settle(subject: string, requestId: string, tokens: number): Promise<void> {
    await this.local.settle(subject, requestId, tokens);
    if (this.shared.available()) await this.shared.settle(subject, requestId, tokens);
  }

  async close(): Promise<void> {
    await Promise.all([this.shared.close(), this.local.close()]);
  }

  private markDown(error: Error): void {
    if (this.down) return;
    this.down = true;
    const consequence =
      this.policy === 'fail-open'
        ? 'rate limits are counted in this instance only until it returns (REDIS_OUTAGE=fail-open)'
        : 'model requests are answered 503 service_unavailable until it returns (REDIS_OUTAGE=fail-closed)';
    this.logger.error({ err: error }, `Redis is unreachable: ${consequence}`);
  }

  private markUp(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.warn('Redis is reachable again: rate limits are shared across instances again');
  }
}
