import { ReplyError, type Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { RATE_WINDOW_MS, RateLimiterUnavailableError, type Admission, type RateLimiter, type RateLimits } from './rate-limiter.js';
import { redisIsReady } from './redis-client.js';

/**
 * The sliding window in Redis, decided by one Lua script (one round trip, atomic across instances), at a
 * cost that does not grow with the requests in the window:
 *   KEYS[1] sorted set: score = admission time (ms), member = `<requestId>:<tokens>`
 *   KEYS[2] hash: requestId → member (so `settle` finds its entry without a scan)
 *   KEYS[3] the running total of tokens in the window
 * Expired entries are removed (their tokens subtracted) on each call; only a refusal for tokens walks the
 * oldest entries to compute an honest Retry-After. Returns {1} when admitted, or {0, retryAfterMs, reason}.
 */
const ADMIT = `
local entries, ids, total = KEYS[1], KEYS[2], KEYS[3]
local now, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local rpm, tpm, tokens, id = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local expired = redis.call('ZRANGEBYSCORE', entries, '-inf', now - window)
if #expired > 0 then
  local freed = 0
  for i = 1, #expired do
    local member = expired[i]
    freed = freed + tonumber(string.match(member, ':(%d+)$'))
    redis.call('HDEL', ids, string.match(member, '^(.*):%d+$'))
  end
  redis.call('ZREMRANGEBYSCORE', entries, '-inf', now - window)
  redis.call('DECRBY', total, freed)
end
local count = redis.call('ZCARD', entries)
if count + 1 > rpm then
  local oldest = redis.call('ZRANGE', entries, count - rpm, count - rpm, 'WITHSCORES')
  return {0, tonumber(oldest[2]) + window - now, 'requests'}
end
local used = tonumber(redis.call('GET', total) or '0')
if used + tokens > tpm then
  if tokens > tpm then return {0, window, 'tokens'} end
  local oldest = redis.call('ZRANGE', entries, 0, -1, 'WITHSCORES')
  for i = 1, #oldest, 2 do
    used = used - tonumber(string.match(oldest[i], ':(%d+)$'))
    if used + tokens <= tpm then return {0, tonumber(oldest[i + 1]) + window - now, 'tokens'} end
  end
end
local member = id .. ':' .. tokens
redis.call('ZADD', entries, now, member)
redis.call('HSET', ids, id, member)
redis.call('INCRBY', total, tokens)
redis.call('PEXPIRE', entries, window)
redis.call('PEXPIRE', ids, window)
redis.call('PEXPIRE', total, window)
return {1}
`;

const SETTLE = `
local entries, ids, total = KEYS[1], KEYS[2], KEYS[3]
local id, tokens = ARGV[1], tonumber(ARGV[2])
local member = redis.call('HGET', ids, id)
if not member then return 0 end
local score = redis.call('ZSCORE', entries, member)
if not score then return 0 end
local before = tonumber(string.match(member, ':(%d+)$'))
local replacement = id .. ':' .. tokens
redis.call('ZREM', entries, member)
redis.call('ZADD', entries, score, replacement)
redis.call('HSET', ids, id, replacement)
redis.call('INCRBY', total, tokens - before)
return 1
`;

type ScriptedRedis = Redis & {
  gatewayAdmit(...keysAndArgs: Array<string | number>): Promise<[number, number?, string?]>;
  gatewaySettle(...keysAndArgs: Array<string | number>): Promise<number>;
};

/** How long settle corrections gather before they go out together. */
const SETTLE_GATHER_MS = 5;

/**
 * How long `close` waits for corrections already sent: longer than the gateway client's command timeout
 * (a correction Redis answers at all is waited for), short enough that a Redis that stopped answering
 * does not hold up a shutdown.
 */
export const CLOSE_PATIENCE_MS = 2_000;

interface PendingSettle {
  readonly keys: [string, string, string];
  readonly requestId: string;
  readonly tokens: number;
  resolve(): void;
  reject(error: unknown): void;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: ScriptedRedis;
  private pendingSettles: PendingSettle[] = [];
  private settleTimer: NodeJS.Timeout | undefined;
  /** Settles once Redis has answered every correction sent so far; `close` waits for it. */
  private sent: Promise<void> = Promise.resolve();

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly clock: Clock,
  ) {
    redis.defineCommand('gatewayAdmit', { numberOfKeys: 3, lua: ADMIT });
    redis.defineCommand('gatewaySettle', { numberOfKeys: 3, lua: SETTLE });
    this.redis = redis as ScriptedRedis;
  }

  async admit(subject: string, requestId: string, tokens: number, limits: RateLimits): Promise<Admission> {
    const now = this.clock.now().getTime();
    const [allowed, retryAfterMs, reason] = await this.send(() =>
      this.redis.gatewayAdmit(
        ...this.keys(subject),
        now,
        RATE_WINDOW_MS,
        limits.requestsPerMinute,
        limits.tokensPerMinute,
        Math.max(0, Math.ceil(tokens)),
        requestId,
      ),
    );
    if (allowed === 1) return { allowed: true };
    return { allowed: false, retryAfterMs: Math.max(1, Number(retryAfterMs)), reason: reason === 'tokens' ? 'tokens' : 'requests' };
  }

  /**
   * Corrections wait up to SETTLE_GATHER_MS and go out together: the calls of one turn of the event loop
   * share one write (auto-pipelining), so under load the second Redis call of a request no longer costs a
   * system call of its own on either side. Nothing waits for a correction but the window's count, and a few
   * milliseconds there are below what the window can resolve.
   */
  settle(subject: string, requestId: string, tokens: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pendingSettles.push({ keys: this.keys(subject), requestId, tokens: Math.max(0, Math.ceil(tokens)), resolve, reject });
      this.settleTimer ??= setTimeout(() => this.flushSettles(), SETTLE_GATHER_MS);
    });
  }

  private flushSettles(): void {
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    const batch = this.pendingSettles;
    this.pendingSettles = [];
    const answered = batch.map((pending) =>
      this.send(() => this.redis.gatewaySettle(...pending.keys, pending.requestId, pending.tokens)).then(() => pending.resolve(), pending.reject),
    );
    // resolved to nothing: a chain of results (each holding the one before) would grow with every flush
    this.sent = Promise.all([this.sent, ...answered]).then(() => undefined);
  }

  /** Whether the connection is up; the outage policy asks before each request. */
  available(): boolean {
    return redisIsReady(this.redis);
  }

  /**
   * A command fails at once while the connection is down, and within the client's command timeout when
   * Redis stops answering; either way the caller gets one error type that says "not counted".
   */
  private async send<T>(command: () => Promise<T>): Promise<T> {
    if (!redisIsReady(this.redis)) throw new RateLimiterUnavailableError(`Redis is ${this.redis.status}`);
    try {
      return await command();
    } catch (error) {
      if (error instanceof ReplyError) throw error; // Redis answered: a fault of the script, not an outage
      throw new RateLimiterUnavailableError(`Redis did not run the rate-limit script: ${(error as Error).message}`, { cause: error });
    }
  }

  /**
   * Sends the corrections still gathering and waits (at most CLOSE_PATIENCE_MS) until Redis has answered
   * every one: the caller quits the connection next, and a QUIT bypasses the auto-pipeline, so it would
   * overtake corrections still queued there and Redis would never run them. The connection itself belongs
   * to the caller.
   */
  async close(): Promise<void> {
    this.flushSettles();
    // unref'd: a timer left running after the corrections were answered does not keep the process up
    const patience = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_PATIENCE_MS).unref());
    await Promise.race([this.sent, patience]);
  }

  /** The three keys share a hash tag, so a Redis Cluster keeps them on one slot for the script. */
  private keys(subject: string): [string, string, string] {
    const base = `${this.prefix}rate:{${subject}}`;
    return [`${base}:entries`, `${base}:ids`, `${base}:tokens`];
  }
}
