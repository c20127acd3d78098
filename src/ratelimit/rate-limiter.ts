/**
 * Per-key limits of requests and tokens per minute (spec 8; defaults 120 and 200,000), as a sliding
 * window of the last 60 seconds: the 120th request in any minute passes, the 121st is refused, and
 * `retryAfterMs` is the honest wait until enough of the window has expired (peer-pitfalls, rate limits).
 *
 * Tokens are counted when a request is admitted, at the worst case its reserve is priced on: the estimated
 * input plus the output cap of every answer it asked for, the model's response ceiling when the client set
 * no cap. So a burst of concurrent requests cannot overshoot the limit, with or without `max_tokens`; when
 * the request ends, `settle` replaces the estimate by what it really used.
 */
export interface RateLimits {
  readonly requestsPerMinute: number;
  readonly tokensPerMinute: number;
}

export type Admission = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterMs: number; readonly reason: 'requests' | 'tokens' };

export interface RateLimiter {
  admit(subject: string, requestId: string, tokens: number, limits: RateLimits): Promise<Admission>;
  settle(subject: string, requestId: string, tokens: number): Promise<void>;
  close(): Promise<void>;
}

export const RATE_WINDOW_MS = 60_000;

/** The limiter's store cannot be reached (Redis down, or not answering in time): nothing was counted. */
export class RateLimiterUnavailableError extends Error {
  override name = 'RateLimiterUnavailableError';
}

