import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { RATE_WINDOW_MS, type Admission, type RateLimiter, type RateLimits } from './rate-limiter.js';

/**
 * The sliding window in Redis, decided by one Lua script (one round trip, atomic across instances).
 * A sorted set per subject: score = admission time (ms), member = `<requestId>:<tokens>`.
 * Returns {1} when admitted, or {0, retryAfterMs, reason}.
 */
const ADMIT = `
local key, now, window = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
local rpm, tpm, tokens, id = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local entries = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
local count = #entries / 2
if count + 1 > rpm then
  return {0, tonumber(entries[(count - rpm) * 2 + 2]) + window - now, 'requests'}
end
local used = 0
for i = 1, #entries, 2 do used = used + tonumber(string.match(entries[i], ':(%d+)$')) end
if used + tokens > tpm then
  if tokens > tpm then return {0, window, 'tokens'} end
  for i = 1, #entries, 2 do
    used = used - tonumber(string.match(entries[i], ':(%d+)$'))
    if used + tokens <= tpm then return {0, tonumber(entries[i + 1]) + window - now, 'tokens'} end
  end
end
redis.call('ZADD', key, now, id .. ':' .. tokens)
redis.call('PEXPIRE', key, window)
return {1}
`;

const SETTLE = `
local key, id, tokens = KEYS[1], ARGV[1], ARGV[2]
local members = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
for i = 1, #members, 2 do
  if string.sub(members[i], 1, #id + 1) == id .. ':' then
    redis.call('ZREM', key, members[i])
    redis.call('ZADD', key, members[i + 1], id .. ':' .. tokens)
    return 1
  end
end
return 0
`;

type ScriptedRedis = Redis & {
  gatewayAdmit(key: string, ...args: Array<string | number>): Promise<[number, number?, string?]>;
  gatewaySettle(key: string, ...args: Array<string | number>): Promise<number>;
};

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: ScriptedRedis;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly clock: Clock,
  ) {
    redis.defineCommand('gatewayAdmit', { numberOfKeys: 1, lua: ADMIT });
    redis.defineCommand('gatewaySettle', { numberOfKeys: 1, lua: SETTLE });
    this.redis = redis as ScriptedRedis;
  }

  async admit(subject: string, requestId: string, tokens: number, limits: RateLimits): Promise<Admission> {
    const now = this.clock.now().getTime();
    const [allowed, retryAfterMs, reason] = await this.redis.gatewayAdmit(
      this.key(subject),
      now,
      RATE_WINDOW_MS,
      limits.requestsPerMinute,
      limits.tokensPerMinute,
      Math.max(0, Math.ceil(tokens)),
      requestId,
    );
    if (allowed === 1) return { allowed: true };
    return { allowed: false, retryAfterMs: Math.max(1, Number(retryAfterMs)), reason: reason === 'tokens' ? 'tokens' : 'requests' };
  }

  async settle(subject: string, requestId: string, tokens: number): Promise<void> {
    await this.redis.gatewaySettle(this.key(subject), requestId, Math.max(0, Math.ceil(tokens)));
  }

  async close(): Promise<void> {}

  private key(subject: string): string {
    return `${this.prefix}rate:${subject}`;
  }
}
