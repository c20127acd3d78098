import { expect } from 'chai';
import { Queue } from 'bullmq';
import { startFakeAnthropic, type FakeAnthropic } from '../../ops/fake-providers/fake-anthropic-provider.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../ops/fake-providers/fake-openai-provider.js';
import { FAKE_ANTHROPIC_KEY, FAKE_OPENAI_KEY } from '../support/test-gateway.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { testDatabaseUrl, testRedisPrefix, testRedisUrl } from '../support/databases.js';
import { startTcpProxy, type TcpProxy } from '../../ops/bench/lib/tcp-proxy.js';
import { eventually } from '../support/eventually.js';
import { CLIENT_FORMATS, postText, textRequest } from '../support/text-format-client.js';
import { expectResponsive } from '../support/responsiveness.js';

/**
 * Redis cut in front of two gateway processes (a TCP proxy the test closes and opens again), one with
 * the default REDIS_OUTAGE=fail-closed and one with fail-open. The gateways run as child processes, so a
 * gateway that spun on a dead connection could not starve mocha's own timers; each child reports its
 * event-loop delay and CPU time (test/support/event-loop-probe.ts).
 */
const MODEL = 'openai/gpt-4o-mini';

describe('when Redis goes away', function () {
  this.timeout(120_000);
  let openai: FakeOpenAi;
  let anthropic: FakeAnthropic;
  let proxy: TcpProxy;
  let proxyPort: number;
  let closed: GatewayProcess;
  let open: GatewayProcess;
  let prefix: string;
  let redis: URL;
  const cut = () => proxy.close();
  const restore = async () => {
    proxy = await startTcpProxy(redis.hostname, Number(redis.port || 6379), proxyPort);
  };

  before(async () => {
    prefix = testRedisPrefix('outage');
    redis = new URL(testRedisUrl());
    openai = await startFakeOpenAi({ apiKey: FAKE_OPENAI_KEY });
    anthropic = await startFakeAnthropic({ apiKey: FAKE_ANTHROPIC_KEY });
    proxy = await startTcpProxy(redis.hostname, Number(redis.port || 6379));
    proxyPort = proxy.port;
    const env = { DATABASE_URL: testDatabaseUrl(), REDIS_URL: `redis://127.0.0.1:${proxyPort}`, REDIS_PREFIX: prefix };
    const providers = { openai: openai.url, anthropic: anthropic.url };
    [closed, open] = await Promise.all([
      startGatewayProcess(env, providers, { probeEventLoop: true }),
      startGatewayProcess({ ...env, REDIS_OUTAGE: 'fail-open' }, providers, { probeEventLoop: true }),
    ]);
    // A serving gateway has run each path once: first-use costs (JIT, tokenizer tables) are not the outage's.
    for (const gateway of [closed, open]) {
      const warm = await gateway.admin.organizationWithKey({ credits: '1' });
      for (const format of CLIENT_FORMATS) {
        expect((await postText(gateway.url, format, warm.secret, textRequest(format, MODEL, { stream: false }))).status).to.equal(200);
      }
    }
  });

  after(async () => {
    // each part closes even when another fails to
    const results = await Promise.allSettled([closed?.stop(), open?.stop()]);
    await Promise.allSettled([proxy?.close(), openai?.close(), anthropic?.close()]);
    for (const result of results) if (result.status === 'rejected') throw result.reason;
  });

  it('answers 503 with Retry-After on every text endpoint within 2 s, reserves nothing, and serves again once Redis returns', async () => {
    const customer = await closed.admin.organizationWithKey({ credits: '5' });
    expect((await postText(closed.url, 'chat', customer.secret, textRequest('chat', MODEL, { stream: false }))).status).to.equal(200);
    let before: { balance_usd: string; reserved_usd: string } = { balance_usd: '', reserved_usd: '' };
    await eventually(async () => {
      before = await closed.admin.ok('GET', `/organizations/${customer.orgId}`);
      expect(before.reserved_usd, 'the first request is settled').to.equal('0.00');
    });

    await cut();
    const outageStart = Date.now();
    for (const format of CLIENT_FORMATS) {
      for (const stream of [false, true]) {
        const started = Date.now();
        const answer = await postText(closed.url, format, customer.secret, textRequest(format, MODEL, { stream }));
        const elapsed = Date.now() - started;
        expect(answer.status, `${format} stream=${stream}`).to.equal(503);
        expect(elapsed, `${format} stream=${stream} answered after ${elapsed} ms`).to.be.lessThan(2_000);
        expect(answer.headers.get('retry-after')).to.equal('2');
        expect(answer.headers.get('x-request-id')).to.match(/^gen-/);
        if (format === 'messages') expect(answer.body).to.deep.include({ type: 'error', error: { type: 'api_error', message: answer.body.error.message } });
        else expect(answer.body.error).to.include({ type: 'api_error', code: 'service_unavailable' });
      }
    }
    const during = await closed.admin.ok('GET', `/organizations/${customer.orgId}`);
    expect({ balance: during.balance_usd, reserved: during.reserved_usd }, 'nothing reserved, nothing charged').to.deep.equal({
      balance: before.balance_usd,
      reserved: '0.00',
    });

    const readiness = await fetch(`${closed.url}/readyz`);
    expect(readiness.status).to.equal(503);
    const readyBody = (await readiness.json()) as { status: string; checks: Record<string, string> };
    expect(readyBody.status).to.equal('unavailable');
    expect(readyBody.checks.database).to.equal('ok');
    expect(readyBody.checks.redis).to.match(/^error: /);
    expect(readyBody.checks.jobs).to.match(/^error: /);
    expect((await fetch(`${closed.url}/healthz`)).status, 'alive all the same').to.equal(200);

    await holdOutage(outageStart);
    expectResponsive(closed, outageStart, Date.now());
    expect(occurrences(closed.output(), 'Redis is unreachable'), 'the outage is logged once, not per request').to.equal(1);

    await restore();
    const restored = Date.now();
    await eventually(async () => {
      expect((await postText(closed.url, 'chat', customer.secret, textRequest('chat', MODEL, { stream: false }))).status).to.equal(200);
    }, 10_000, 200);
    expect(Date.now() - restored, 'served again within a few seconds').to.be.lessThan(5_000);
    expect(occurrences(closed.output(), 'Redis is reachable again')).to.equal(1);
    expect((await fetch(`${closed.url}/readyz`)).status).to.equal(200);
  });

  it('counts in the instance under REDIS_OUTAGE=fail-open: requests are served, /readyz says degraded, the choice is logged once', async () => {
    const customer = await open.admin.organizationWithKey({ credits: '5', key: { rpm: 2 } });
    await cut();
    const outageStart = Date.now();
    try {
      for (let index = 0; index < 2; index++) {
        const answer = await postText(open.url, 'messages', customer.secret, textRequest('messages', MODEL, { stream: false }));
        expect(answer.status).to.equal(200);
      }
      const third = await postText(open.url, 'chat', customer.secret, textRequest('chat', MODEL, { stream: false }));
      expect(third.status, 'the per-minute limit still holds, counted in this instance').to.equal(429);
      const readiness = await fetch(`${open.url}/readyz`);
      expect(readiness.status).to.equal(200);
      expect(((await readiness.json()) as { status: string }).status).to.equal('degraded');
      expect(occurrences(open.output(), 'REDIS_OUTAGE=fail-open')).to.equal(1);
      await holdOutage(outageStart);
      expectResponsive(open, outageStart, Date.now());
    } finally {
      await restore();
    }
  });

  it('has the job worker back on Redis after the outage', async () => {
    // Each gateway's BullMQ worker of the sweeper's queue holds a named connection: both must be back once Redis is.
    const queue = new Queue('gateway-expire-reservations', { connection: { host: redis.hostname, port: Number(redis.port || 6379) }, prefix: `${prefix}bull` });
    try {
      await eventually(async () => expect(await queue.getWorkersCount()).to.equal(2), 15_000, 250);
    } finally {
      await queue.close();
    }
  });

  it('stops promptly on SIGTERM while Redis is down, without spinning', async () => {
    await cut();
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const stopping = Date.now();
      const code = await closed.stop();
      expect(code).to.equal(0);
      expect(Date.now() - stopping, 'stopped within 15 s').to.be.lessThan(15_000);
      expectResponsive(closed, stopping, Date.now(), 0);
    } finally {
      await restore();
    }
  });
});

/** Keeps Redis down for three seconds in all: long enough for a reconnect loop or a spin to show. */
async function holdOutage(start: number): Promise<void> {
  const remaining = start + 3_000 - Date.now();
  if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
}

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
