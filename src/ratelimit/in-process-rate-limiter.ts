import type { Clock } from '../clock.js';
import { RATE_WINDOW_MS, type Admission, type RateLimiter, type RateLimits } from './rate-limiter.js';

interface Entry {
  readonly at: number;
  readonly requestId: string;
  tokens: number;
}

/** The embedded mode's limiter: the same sliding window as the Redis one, in this process's memory. */
export class InProcessRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, Entry[]>();

  constructor(private readonly clock: Clock) {}

  async admit(subject: string, requestId: string, tokens: number, limits: RateLimits): Promise<Admission> {
    const now = this.clock.now().getTime();
    const entries = this.window(subject, now);
    if (entries.length + 1 > limits.requestsPerMinute) {
      return { allowed: false, reason: 'requests', retryAfterMs: entries[entries.length - limits.requestsPerMinute]!.at + RATE_WINDOW_MS - now };
    }
    let used = entries.reduce((sum, entry) => sum + entry.tokens, 0);
    if (used + tokens > limits.tokensPerMinute) {
      if (tokens > limits.tokensPerMinute) return { allowed: false, reason: 'tokens', retryAfterMs: RATE_WINDOW_MS };
      for (const entry of entries) {
        used -= entry.tokens;
        if (used + tokens <= limits.tokensPerMinute) return { allowed: false, reason: 'tokens', retryAfterMs: entry.at + RATE_WINDOW_MS - now };
      }
    }
    entries.push({ at: now, requestId, tokens });
    return { allowed: true };
  }

  async settle(subject: string, requestId: string, tokens: number): Promise<void> {
    const entry = this.windows.get(subject)?.find((candidate) => candidate.requestId === requestId);
    if (entry) entry.tokens = tokens;
  }

  async close(): Promise<void> {
    this.windows.clear();
  }

  private window(subject: string, now: number): Entry[] {
    let entries = this.windows.get(subject);
    if (!entries) this.windows.set(subject, (entries = []));
    let expired = 0;
    while (expired < entries.length && entries[expired]!.at <= now - RATE_WINDOW_MS) expired++;
    if (expired > 0) entries.splice(0, expired);
    return entries;
  }
}
