import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { connectRedis, createRedisClient, redisIsReady } from '../../../src/ratelimit/redis-client.js';
import { testRedisUrl } from '../../support/databases.js';
import { startTcpProxy, type TcpProxy } from '../../../ops/bench/lib/tcp-proxy.js';
import { freePort } from '../../../ops/free-port.js';

/**
 * The request-path Redis connection (src/ratelimit/redis-client.ts): a Redis outage must fail a request
 * within a second, never park it, and the gateway must start (and say so) when Redis is not there.
 */
describe('request-path Redis client (real Redis)', function () {
  this.timeout(30_000);
  const clients: Redis[] = [];
  const proxies: TcpProxy[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    for (const proxy of proxies.splice(0)) await proxy.close();
  });

  function client(url: string): Redis {
    const redis = createRedisClient(url);
    clients.push(redis);
    return redis;
  }

  async function stalledProxy(): Promise<TcpProxy> {
    const target = new URL(testRedisUrl());
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    proxies.push(proxy);
    return proxy;
  }

  async function elapsed<T>(work: () => Promise<T>): Promise<[T, number]> {
    const started = performance.now();
    const result = await work();
    return [result, performance.now() - started];
  }

  it('connects only when asked, and is ready once connected', async () => {
    const redis = client(testRedisUrl());
    expect(redis.status, 'nothing is opened before connectRedis').to.equal('wait');
    expect(redisIsReady(redis)).to.equal(false);
    expect(await connectRedis(redis)).to.equal(true);
    expect(redis.status).to.equal('ready');
    expect(redisIsReady(redis)).to.equal(true);
    expect(await redis.ping()).to.equal('PONG');
    const ended = new Promise((resolve) => redis.once('end', resolve));
    redis.disconnect();
    await ended;
    expect(redisIsReady(redis)).to.equal(false);
  });

  it('reports at once that nothing listens, and fails commands at once instead of queueing them', async () => {
    const redis = client(`redis://127.0.0.1:${await freePort()}`);
    // connection errors go to readiness and to each request, not as raw stacks on stderr per attempt
    const printed: unknown[][] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => void printed.push(args);
    let connected: boolean;
    let connecting: number;
    try {
      [connected, connecting] = await elapsed(() => connectRedis(redis));
      await new Promise((resolve) => setTimeout(resolve, 250)); // a reconnection attempt fails too
    } finally {
      console.error = consoleError;
    }
    expect(printed).to.deep.equal([]);
    expect(connected).to.equal(false);
    expect(connecting, 'a refused connection does not wait out the 3 s').to.be.below(1_000);
    expect(redisIsReady(redis)).to.equal(false);
    const [error, failing] = await elapsed(() => redis.ping().then(() => undefined, (reason: Error) => reason));
    expect(error?.message).to.equal("Stream isn't writeable and enableOfflineQueue options is false");
    expect(failing).to.be.below(100);
  });

  it('stops waiting for a first connection that does not answer after the given time', async () => {
    const proxy = await stalledProxy();
    proxy.stall();
    const redis = client(`redis://127.0.0.1:${proxy.port}`);
    const [connected, waited] = await elapsed(() => connectRedis(redis, 300));
    expect(connected).to.equal(false);
    expect(waited).to.be.within(290, 900);
  });

  it('fails a command Redis does not answer after 1 s, on a connection that stays up', async () => {
    const proxy = await stalledProxy();
    const redis = client(`redis://127.0.0.1:${proxy.port}`);
    expect(await connectRedis(redis)).to.equal(true);
    proxy.stall();
    const [error, waited] = await elapsed(() => redis.get('gwtest:unanswered').then(() => undefined, (reason: Error) => reason));
    expect(error?.message).to.equal('Command timed out');
    expect(waited).to.be.within(950, 1_900);
  });

  it('reconnects 200 ms later per attempt, never more than 2 s apart', () => {
    const { retryStrategy } = client(testRedisUrl()).options;
    expect([1, 2, 5, 9, 10, 11, 100].map((attempt) => retryStrategy!(attempt))).to.deep.equal([200, 400, 1_000, 1_800, 2_000, 2_000, 2_000]);
  });
});
