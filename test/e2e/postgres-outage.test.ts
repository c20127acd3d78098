import { expect } from 'chai';
import { startFakeOpenAi, type FakeOpenAi } from '../../ops/fake-providers/fake-openai-provider.js';
import { FAKE_OPENAI_KEY } from '../support/test-gateway.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { testDatabaseUrl } from '../support/databases.js';
import { startTcpProxy, type TcpProxy } from '../../ops/bench/lib/tcp-proxy.js';
import { eventually } from '../support/eventually.js';
import { expectResponsive } from '../support/responsiveness.js';
import { CLIENT_FORMATS, postText, textRequest } from '../support/text-format-client.js';

/**
 * Postgres (the event store and the read models) cut in front of a gateway process by a TCP proxy the test
 * closes and opens again. The gateway is a child process, so nothing it does can stall mocha.
 */
const MODEL = 'openai/gpt-4o-mini';

describe('when Postgres goes away', function () {
  this.timeout(120_000);
  let openai: FakeOpenAi;
  let proxy: TcpProxy;
  let gateway: GatewayProcess;
  let database: URL;
  let proxyPort: number;

  before(async () => {
    openai = await startFakeOpenAi({ apiKey: FAKE_OPENAI_KEY });
    database = new URL(testDatabaseUrl());
    proxy = await startTcpProxy(database.hostname, Number(database.port || 5432));
    proxyPort = proxy.port;
    const proxied = new URL(database);
    proxied.port = String(proxyPort);
    gateway = await startGatewayProcess({ DATABASE_URL: proxied.toString() }, { openai: openai.url }, { probeEventLoop: true });
  });

  after(async () => {
    const stopped = await Promise.allSettled([gateway?.stop()]);
    await Promise.allSettled([proxy?.close(), openai?.close()]);
    for (const result of stopped) if (result.status === 'rejected') throw result.reason;
  });

  it('says so on /readyz, answers model requests 503 without charging, and serves again once it returns', async () => {
    const customer = await gateway.admin.organizationWithKey({ credits: '5' });
    expect((await postText(gateway.url, 'chat', customer.secret, textRequest('chat', MODEL, { stream: false }))).status).to.equal(200);
    await eventually(async () => expect((await gateway.admin.ok('GET', `/organizations/${customer.orgId}`)).reserved_usd).to.equal('0.00'));

    await proxy.close();
    const outageStart = Date.now();
    const readiness = await fetch(`${gateway.url}/readyz`);
    expect(readiness.status).to.equal(503);
    const body = (await readiness.json()) as { status: string; checks: Record<string, string> };
    expect(body.status).to.equal('unavailable');
    expect(body.checks.database).to.match(/^error: /);
    expect((await fetch(`${gateway.url}/healthz`)).status, 'alive all the same').to.equal(200);
    for (const format of CLIENT_FORMATS) {
      const answer = await postText(gateway.url, format, customer.secret, textRequest(format, MODEL, { stream: false }));
      expect(answer.status, format).to.equal(503);
      expect(answer.headers.get('retry-after'), format).to.match(/^\d+$/);
      if (format === 'messages') expect(answer.body.error.type).to.equal('api_error');
      else expect(answer.body.error).to.include({ type: 'api_error', code: 'service_unavailable' });
    }
    expect(openai.requests.filter((request) => request.path === '/v1/chat/completions').length, 'no request reached the provider during the outage').to.equal(1);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, outageStart + 3_000 - Date.now())));
    expectResponsive(gateway, outageStart, Date.now());

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, outageStart + 3_000 - Date.now())));
    expectResponsive(gateway, outageStart, Date.now());

    proxy = await startTcpProxy(database.hostname, Number(database.port || 5432), proxyPort);
    await eventually(async () => {
      expect((await postText(gateway.url, 'chat', customer.secret, textRequest('chat', MODEL, { stream: false }))).status).to.equal(200);
    }, 20_000, 250);
    await eventually(async () => {
      const organization = await gateway.admin.ok('GET', `/organizations/${customer.orgId}`);
      expect(organization.reserved_usd).to.equal('0.00');
    });
    expect((await fetch(`${gateway.url}/readyz`)).status).to.equal(200);
  });

  it('settles a request whose answer was sent while Postgres was away, once it returns', async () => {
    const customer = await gateway.admin.organizationWithKey({ credits: '5' });
    let release!: () => void;
    openai.enqueue({ holdUntil: new Promise<void>((resolve) => (release = resolve)), usage: { inputTokens: 1_000, outputTokens: 2_000 } });
    const answering = postText(gateway.url, 'chat', customer.secret, textRequest('chat', MODEL, { stream: false }));
    await eventually(async () => expect((await gateway.admin.ok('GET', `/organizations/${customer.orgId}`)).reserved_usd).to.not.equal('0.00'));
    await proxy.close();
    release();
    expect((await answering).status, 'the answer reaches the client').to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    proxy = await startTcpProxy(database.hostname, Number(database.port || 5432), proxyPort);
    // 1,000 input tokens at $0.15/M + 2,000 output tokens at $0.60/M = $0.00015 + $0.0012 = $0.00135
    await eventually(async () => {
      const organization = await gateway.admin.ok('GET', `/organizations/${customer.orgId}`);
      expect({ balance: organization.balance_usd, reserved: organization.reserved_usd }).to.deep.equal({ balance: '4.99865', reserved: '0.00' });
    }, 20_000, 250);
  });
});
