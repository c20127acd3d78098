import { expect } from 'chai';
import { pino } from 'pino';
import type { Redis } from 'ioredis';
import { systemClock } from '../../../src/clock.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { InProcessRateLimiter } from '../../../src/ratelimit/in-process-rate-limiter.js';
import { OutageAwareRateLimiter, type RedisOutagePolicy } from '../../../src/ratelimit/outage-aware-rate-limiter.js';
import type { RateLimits } from '../../../src/ratelimit/rate-limiter.js';
import { RedisRateLimiter } from '../../../src/ratelimit/redis-rate-limiter.js';
import { connectRedis, createRedisClient } from '../../../src/ratelimit/redis-client.js';
import { testRedisPrefix, testRedisUrl } from '../../support/databases.js';
import { eventually } from '../../support/eventually.js';
import { startTcpProxy, type TcpProxy } from '../../../ops/bench/lib/tcp-proxy.js';

/**
 * The limiter the gateway runs with Redis (src/core.ts): the shared Redis limiter, and what a request gets
 * while Redis cannot be reached (REDIS_OUTAGE). Real Redis behind a TCP proxy the test closes and reopens,
 * as in the end-to-end outage suite, but at the limiter's seam so every branch is seen in-process.
 */
describe('outage-aware rate limiter (real Redis behind a proxy)', function () {
  this.timeout(30_000);
  const limits: RateLimits = { requestsPerMinute: 2, tokensPerMinute: 1_000 };
  let proxy: TcpProxy;
  let port: number;
  const clients: Redis[] = [];
  let target: URL;

  before(async () => {
    target = new URL(testRedisUrl());
    proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    port = proxy.port;
  });
  after(async () => {
    for (const client of clients) client.disconnect();
    await proxy.close();
  });

  /** One gateway instance's limiter, with the log lines it writes. */
  async function instance(policy: RedisOutagePolicy, prefix: string) {
    const redis = createRedisClient(`redis://127.0.0.1:${port}`);
    clients.push(redis);
    expect(await connectRedis(redis)).to.equal(true);
    const lines: Array<{ level: number; msg: string; err?: { type: string; message: string } }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const limiter = new OutageAwareRateLimiter(new RedisRateLimiter(redis, prefix, systemClock), policy, new InProcessRateLimiter(systemClock), logger);
    return { limiter, lines, redis };
  }

  const messages = (lines: Array<{ msg: string }>, text: string) => lines.filter((line) => line.msg.includes(text)).length;

  async function cutAndRestore(during: () => Promise<void>, redis: Redis[]): Promise<void> {
    await proxy.close();
    await eventually(async () => expect(redis.every((client) => client.status !== 'ready')).to.equal(true));
    try {
      await during();
    } finally {
      proxy = await startTcpProxy(target.hostname, Number(target.port || 6379), port);
    }
    await eventually(async () => expect(redis.every((client) => client.status === 'ready')).to.equal(true), 10_000);
  }

  it('shares the count across instances while Redis answers', async () => {
    const prefix = testRedisPrefix('outage-aware');
    const [first, second] = [await instance('fail-closed', prefix), await instance('fail-closed', prefix)];
    expect(await first.limiter.admit('key_a', 'gen-1', 10, limits)).to.deep.equal({ allowed: true });
    expect(await second.limiter.admit('key_a', 'gen-2', 10, limits)).to.deep.equal({ allowed: true });
    // two requests a minute in all: the third is refused by whichever instance gets it
    expect(await first.limiter.admit('key_a', 'gen-3', 10, limits)).to.include({ allowed: false, reason: 'requests' });
    // a settle goes to Redis (and to the local limiter, which never saw the request) without an error
    await first.limiter.settle('key_a', 'gen-1', 500);
    expect(await second.redis.get(`${prefix}rate:{key_a}:tokens`), 'gen-1 counts 500 for every instance').to.equal('510');
    expect(await first.limiter.admit('key_b', 'gen-4', 1, limits), 'other keys are separate').to.deep.equal({ allowed: true });
    expect(first.lines.concat(second.lines)).to.deep.equal([]);
  });

  it('answers 503 with Retry-After under fail-closed, logs the outage once, and its end once', async () => {
    const { limiter, lines, redis } = await instance('fail-closed', testRedisPrefix('outage-aware'));
    await cutAndRestore(async () => {
      for (const requestId of ['gen-1', 'gen-2', 'gen-3']) {
        const refusal = await limiter.admit('key_c', requestId, 10, limits).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refusal).to.be.instanceOf(GatewayError);
        expect(refusal).to.include({ code: 'service_unavailable', status: 503, retryAfterSeconds: 2 });
        expect((refusal as Error).message).to.equal('rate limits cannot be checked: Redis is unreachable; nothing was reserved or charged');
      }
      // a settle while Redis is away is not sent there (the caller logs the failure of a sent one)
      await limiter.settle('key_c', 'gen-1', 0);
    }, [redis]);
    expect(messages(lines, 'Redis is unreachable'), 'logged once').to.equal(1);
    expect(messages(lines, 'REDIS_OUTAGE=fail-closed')).to.equal(1);
    // the connection was known to be down: no command was sent, and the log says so
    expect(lines[0]).to.include({ level: 50 });
    expect(lines[0]!.err).to.include({ type: 'RateLimiterUnavailableError', message: 'no connection' });
    expect(await limiter.admit('key_c', 'gen-4', 10, limits)).to.deep.equal({ allowed: true });
    expect(messages(lines, 'Redis is reachable again'), 'the end logged once').to.equal(1);
    expect(await limiter.admit('key_c', 'gen-5', 10, limits)).to.deep.equal({ allowed: true });
    expect(messages(lines, 'Redis is reachable again')).to.equal(1);
  });

  it('counts in the instance under fail-open, with the instance its own limits', async () => {
    const { limiter, lines, redis } = await instance('fail-open', testRedisPrefix('outage-aware'));
    await cutAndRestore(async () => {
      expect(await limiter.admit('key_d', 'gen-1', 600, limits)).to.deep.equal({ allowed: true });
      // the local window holds 600 of 1,000 tokens: 500 more are refused …
      expect(await limiter.admit('key_d', 'gen-2', 500, limits)).to.include({ allowed: false, reason: 'tokens' });
      // … until the settle of gen-1 (100 used) reaches the local limiter that admitted it
      await limiter.settle('key_d', 'gen-1', 100);
      expect(await limiter.admit('key_d', 'gen-3', 500, limits)).to.deep.equal({ allowed: true });
      expect(await limiter.admit('key_d', 'gen-4', 1, limits), 'two requests a minute, counted here').to.include({ allowed: false, reason: 'requests' });
    }, [redis]);
    expect(messages(lines, 'REDIS_OUTAGE=fail-open'), 'logged once').to.equal(1);
    // Redis is back: its own window, which never saw the outage's requests, counts again
    expect(await limiter.admit('key_d', 'gen-5', 600, limits)).to.deep.equal({ allowed: true });
  });
});
