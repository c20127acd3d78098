import type { Clock } from '../clock.js';
import { RATE_WINDOW_MS, type Admission, type RateLimiter, type RateLimits } from './rate-limiter.js';

interface Entry {
  readonly at: number;
  tokens: number;
}

/** One subject's window: entries in admission order (a queue with a moving head), their token total, and an index by request id. */
interface Window {
  readonly entries: Entry[];
  head: number;
  tokens: number;
  readonly byId: Map<string, Entry>;
  readonly ids: string[];
}

/**
 * The embedded mode's limiter: the same sliding window as the Redis one, in this process's memory, at a
 * cost that does not grow with the requests in the window (only a refusal for tokens walks the entries).
 */
export class InProcessRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly clock: Clock) {}

  async admit(subject: string, requestId: string, tokens: number, limits: RateLimits): Promise<Admission> {
    const now = this.clock.now().getTime();
    const window = this.window(subject, now);
    const count = window.entries.length - window.head;
    if (count + 1 > limits.requestsPerMinute) {
      const freeing = window.entries[window.head + count - limits.requestsPerMinute]!;
      return { allowed: false, reason: 'requests', retryAfterMs: freeing.at + RATE_WINDOW_MS - now };
    }
    if (window.tokens + tokens > limits.tokensPerMinute) {
      if (tokens > limits.tokensPerMinute) return { allowed: false, reason: 'tokens', retryAfterMs: RATE_WINDOW_MS };
      let used = window.tokens;
      for (let index = window.head; index < window.entries.length; index++) {
        const entry = window.entries[index]!;
        used -= entry.tokens;
        if (used + tokens <= limits.tokensPerMinute) return { allowed: false, reason: 'tokens', retryAfterMs: entry.at + RATE_WINDOW_MS - now };
      }
    }
    const entry: Entry = { at: now, tokens };
    window.entries.push(entry);
    window.ids.push(requestId);
    window.byId.set(requestId, entry);
    window.tokens += tokens;
    return { allowed: true };
  }

  async settle(subject: string, requestId: string, tokens: number): Promise<void> {
    const window = this.windows.get(subject);
    const entry = window?.byId.get(requestId);
    if (!window || !entry) return;
    window.tokens += tokens - entry.tokens;
    entry.tokens = tokens;
  }

  async close(): Promise<void> {
    this.windows.clear();
  }

  private window(subject: string, now: number): Window {
    let window = this.windows.get(subject);
    if (!window) this.windows.set(subject, (window = { entries: [], head: 0, tokens: 0, byId: new Map(), ids: [] }));
    while (window.head < window.entries.length && window.entries[window.head]!.at <= now - RATE_WINDOW_MS) {
      window.tokens -= window.entries[window.head]!.tokens;
      window.byId.delete(window.ids[window.head]!);
      window.head++;
    }
    // compact now and then, so the queue does not keep every request ever admitted
    if (window.head > 1_024 && window.head * 2 > window.entries.length) {
      window.entries.splice(0, window.head);
      window.ids.splice(0, window.head);
      window.head = 0;
    }
    return window;
  }
}
