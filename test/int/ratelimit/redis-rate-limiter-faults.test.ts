import { expect } from 'chai';
import { Redis, ReplyError } from 'ioredis';
import { pino } from 'pino';
import { systemClock } from '../../../src/clock.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { InProcessRateLimiter } from '../../../src/ratelimit/in-process-rate-limiter.js';
import { OutageAwareRateLimiter, type RedisOutagePolicy } from '../../../src/ratelimit/outage-aware-rate-limiter.js';
import { RateLimiterUnavailableError } from '../../../src/ratelimit/rate-limiter.js';
import { connectRedis, createRedisClient } from '../../../src/ratelimit/redis-client.js';
import { RedisRateLimiter } from '../../../src/ratelimit/redis-rate-limiter.js';
import { testRedisPrefix, testRedisUrl } from '../../support/databases.js';
import { startTcpProxy, type TcpProxy } from '../../../ops/bench/lib/tcp-proxy.js';

/**
 * How the Redis limiter reports what goes wrong, and what the outage policy makes of it. Only "Redis
 * could not be asked" (RateLimiterUnavailableError) is an outage, answered by REDIS_OUTAGE; an error
 * Redis itself answered (a fault of the script or of the data) is a bug to surface, never a reason to
 * admit the request unmetered or to refuse every request as if Redis were down.
 */
describe('Redis rate limiter faults (real Redis)', function () {
  this.timeout(30_000);
  const limits = { requestsPerMinute: 10, tokensPerMinute: 1_000 };
  const clients: Redis[] = [];
  const proxies: TcpProxy[] = [];
  after(async () => {
    for (const client of clients) client.disconnect();
    for (const proxy of proxies) await proxy.close();
  });

  async function connected(url = testRedisUrl()): Promise<Redis> {
    const redis = createRedisClient(url);
    clients.push(redis);
    expect(await connectRedis(redis)).to.equal(true);
    return redis;
  }

  /** A gateway connection to real Redis through a proxy the test can stall. */
  async function stallable(): Promise<{ redis: Redis; proxy: TcpProxy }> {
    const target = new URL(testRedisUrl());
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    proxies.push(proxy);
    return { redis: await connected(`redis://127.0.0.1:${proxy.port}`), proxy };
  }

  function outageAware(redis: Redis, prefix: string, policy: RedisOutagePolicy) {
    const lines: Array<{ level: number; msg: string; err?: { type: string; message: string } }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const local = new InProcessRateLimiter(systemClock);
    return { limiter: new OutageAwareRateLimiter(new RedisRateLimiter(redis, prefix, systemClock), policy, local, logger), lines, local };
  }

  const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as Error);

  it('passes on an error Redis answered as that error, not as an outage', async () => {
    const redis = await connected();
    const prefix = testRedisPrefix('faults');
    // a key of the wrong type where the window's sorted set belongs: the script fails inside Redis
    await redis.set(`${prefix}rate:{key_f}:entries`, 'not a sorted set');
    await redis.set(`${prefix}rate:{key_g}:ids`, 'not a hash');
    const limiter = new RedisRateLimiter(redis, prefix, systemClock);
    const refusal = await failure(limiter.admit('key_f', 'gen-1', 10, limits));
    expect(refusal).to.be.instanceOf(ReplyError);
    expect(refusal!.message).to.match(/^WRONGTYPE /);
    const correction = await failure(limiter.settle('key_g', 'gen-1', 10));
    expect(correction).to.be.instanceOf(ReplyError);

    for (const policy of ['fail-open', 'fail-closed'] as const) {
      const { limiter: gateway, lines, local } = outageAware(redis, prefix, policy);
      const error = await failure(gateway.admit('key_f', 'gen-2', 10, limits));
      expect(error, policy).to.be.instanceOf(ReplyError);
      expect(lines, 'no outage is logged').to.deep.equal([]);
      // nor was the request counted in the instance's own window instead
      expect(await local.admit('key_f', 'gen-3', 1_000, { requestsPerMinute: 1, tokensPerMinute: 1_000 })).to.deep.equal({ allowed: true });
    }
  });

  it('fails at once on a closed connection, as RateLimiterUnavailableError naming its state', async () => {
    const redis = await connected();
    const limiter = new RedisRateLimiter(redis, testRedisPrefix('faults'), systemClock);
    expect(limiter.available()).to.equal(true);
    const ended = new Promise((resolve) => redis.once('end', resolve));
    redis.disconnect();
    await ended;
    expect(limiter.available()).to.equal(false);
    const started = performance.now();
    const refusal = await failure(limiter.admit('key_h', 'gen-1', 10, limits));
    expect(performance.now() - started).to.be.below(100);
    expect(refusal).to.be.instanceOf(RateLimiterUnavailableError);
    expect(String(refusal)).to.equal('RateLimiterUnavailableError: Redis is end');
    const correction = await failure(limiter.settle('key_h', 'gen-1', 10));
    expect(String(correction)).to.equal('RateLimiterUnavailableError: Redis is end');
  });

  it('fails within the command timeout when Redis stops answering, with the client’s error as the cause', async () => {
    const { redis, proxy } = await stallable();
    const limiter = new RedisRateLimiter(redis, testRedisPrefix('faults'), systemClock);
    expect(await limiter.admit('key_i', 'gen-1', 10, limits)).to.deep.equal({ allowed: true });
    proxy.stall();
    const started = performance.now();
    const refusal = await failure(limiter.admit('key_i', 'gen-2', 10, limits));
    // COMMAND_TIMEOUT_MS (1 s), while the connection still counts as up
    expect(performance.now() - started).to.be.within(950, 1_900);
    expect(limiter.available()).to.equal(true);
    expect(refusal).to.be.instanceOf(RateLimiterUnavailableError);
    expect(refusal!.message).to.equal('Redis did not run the rate-limit script: Command timed out');
    expect(refusal!.cause).to.be.instanceOf(Error).and.to.include({ message: 'Command timed out' });
  });

  it('answers 503 when Redis stops answering under fail-closed, logging the cause once', async () => {
    const { redis, proxy } = await stallable();
    const { limiter, lines } = outageAware(redis, testRedisPrefix('faults'), 'fail-closed');
    expect(await limiter.admit('key_j', 'gen-1', 10, limits)).to.deep.equal({ allowed: true });
    proxy.stall();
    for (const requestId of ['gen-2', 'gen-3']) {
      const refusal = await failure(limiter.admit('key_j', requestId, 10, limits));
      expect(refusal).to.be.instanceOf(GatewayError).and.to.include({ code: 'service_unavailable', status: 503, retryAfterSeconds: 2 });
    }
    expect(lines, 'logged once').to.have.length(1);
    expect(lines[0]).to.include({ level: 50 });
    // the log's serializer appends the cause's message: the client's own error is in the line too
    expect(lines[0]!.err).to.include({ type: 'RateLimiterUnavailableError', message: 'Redis did not run the rate-limit script: Command timed out: Command timed out' });
  });
});
