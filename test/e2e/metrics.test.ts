import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { accountStreamId } from '../../src/ledger/account-events.js';
import { createScratchDatabase } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../support/test-gateway.js';
import { startTcpProxy } from '../../ops/bench/lib/tcp-proxy.js';
import { postText } from '../support/text-format-client.js';

const METRICS_TOKEN = 'scraper-token-0123456789abcdef';
const MODEL = 'openai/gpt-4o-mini';
const CHAT = 'gateway_requests_total{endpoint="chat",model="openai/gpt-4o-mini",status="200"}';

/** Every sample of a scrape, keyed by its series as written (`name{labels}`). */
type Scrape = Map<string, number>;

function parseExposition(text: string): Scrape {
  const samples: Scrape = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    samples.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return samples;
}

/** Declares a body over the 32 MiB limit and sends a few bytes; resolves with the status, which comes at once. */
function declaredOversize(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(33 * 1024 * 1024) } });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        resolve(res.statusCode!);
        req.destroy();
      });
    });
    req.on('error', reject);
    req.write('{"model":');
  });
}

/**
 * `GET /metrics` in the Prometheus text format: each series moves by exactly what the requests made, the
 * endpoint answers the scraper's token and the admin token only, and no key, organization or request id
 * ever becomes a label (their number grows without limit, and they are not the scraper's business).
 * The gateway runs on a database of its own, so the cluster-wide gauges see this test's requests only.
 */
describe('GET /metrics', () => {
  let harness: GatewayHarness;
  let dropDatabase: () => Promise<void>;
  before(async () => {
    const scratch = await createScratchDatabase('metrics');
    dropDatabase = scratch.drop;
    harness = await startGatewayHarness({ DATABASE_URL: scratch.url, METRICS_TOKEN });
  });
  after(async () => {
    try {
      await harness?.checkLedger();
    } finally {
      await harness?.close();
      await dropDatabase?.();
    }
  });

  const get = (token?: string) => fetch(`${harness.gateway.url}/metrics`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
  const scrape = async (): Promise<{ text: string; samples: Scrape }> => {
    const response = await get(METRICS_TOKEN);
    expect(response.status).to.equal(200);
    const text = await response.text();
    return { text, samples: parseExposition(text) };
  };
  const moved = (before: Scrape, after: Scrape, series: string) => (after.get(series) ?? 0) - (before.get(series) ?? 0);

  it('refuses a scrape without the right token in the admin error style', async () => {
    for (const response of [await get(), await get('not-the-token-0123456789'), await fetch(`${harness.gateway.url}/metrics`, { headers: { authorization: METRICS_TOKEN } })]) {
      expect(response.status).to.equal(401);
      expect(response.headers.get('x-request-id')).to.match(/^gen-/);
      const body = (await response.json()) as { error: Record<string, unknown> };
      expect(body.error).to.deep.include({ type: 'authentication_error', code: 'invalid_admin_token' });
    }
  });

  it('answers the metrics token and the admin token in the Prometheus text format', async () => {
    for (const token of [METRICS_TOKEN, TEST_ADMIN_TOKEN]) {
      const response = await get(token);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('text/plain; version=0.0.4; charset=utf-8');
      const text = await response.text();
      expect(text).to.contain('# TYPE gateway_requests_total counter');
      expect(text).to.contain('# TYPE process_cpu_user_seconds_total counter');
      expect(text).to.contain('# TYPE nodejs_eventloop_lag_seconds gauge');
    }
  });

  it('counts requests, latencies, first bytes, refusals and provider errors by exactly what happened', async () => {
    const { orgId, keyId, secret } = await harness.customer('10');
    const limited = await harness.admin.organizationWithKey({ credits: '10', key: { rpm: 1 } });
    const { samples: before } = await scrape();
    // the requests write to the two account streams only (read by stream: readAll may not show a commit of a moment ago yet)
    const accountEvents = async () => {
      let count = 0;
      for (const org of [orgId, limited.orgId]) count += (await harness.gateway.store.readStream(accountStreamId(org))).length;
      return count;
    };
    const eventsBefore = await accountEvents();
    const chat = (key: string, extra: Record<string, unknown> = {}) => postText(harness.gateway.url, 'chat', key, { model: MODEL, messages: [{ role: 'user', content: 'hi' }], ...extra });

    harness.openai.enqueue({ text: 'fine', usage: { inputTokens: 10, outputTokens: 2 } });
    expect((await chat(secret)).status, 'ok').to.equal(200);
    expect((await postText(harness.gateway.url, 'chat', secret, { model: 'nobody/nothing', messages: [{ role: 'user', content: 'hi' }] })).status, 'client error').to.equal(404);
    expect(await declaredOversize(`${harness.gateway.url}/v1/embeddings`), 'refused before anything else').to.equal(413);
    harness.openai.enqueue({ error: { status: 500 } });
    expect((await chat(secret)).status, 'provider error').to.equal(500);
    harness.openai.enqueue({ text: 'one two three', usage: { inputTokens: 10, outputTokens: 3 } });
    const streamed = await chat(secret, { stream: true });
    expect(streamed.status, 'stream').to.equal(200);
    expect(streamed.events!.length).to.be.greaterThan(2);
    harness.openai.enqueue({ text: 'one two three four five', failAfterEvents: 2 });
    expect((await chat(secret, { stream: true })).status, 'broken stream').to.equal(200);
    harness.openai.enqueue({ text: 'fine', usage: { inputTokens: 10, outputTokens: 2 } });
    expect((await chat(limited.secret)).status, 'first of the limited key').to.equal(200);
    expect((await chat(limited.secret)).status, 'second of the limited key').to.equal(429);
    await harness.settledMoney(orgId);
    await harness.settledMoney(limited.orgId);

    // the request series are written when each request's record is closed, just after its answer
    let after: Scrape = new Map();
    await eventually(async () => {
      after = (await scrape()).samples;
      expect(moved(before, after, CHAT), 'answered 200: ok, stream, broken stream, the limited key’s first').to.equal(4);
    }, 2_000);
    expect(moved(before, after, 'gateway_requests_total{endpoint="chat",model="",status="404"}'), 'unknown model: no model label').to.equal(1);
    expect(moved(before, after, 'gateway_requests_total{endpoint="embeddings",model="",status="413"}'), 'body declared too large').to.equal(1);
    expect(moved(before, after, 'gateway_requests_total{endpoint="chat",model="openai/gpt-4o-mini",status="500"}')).to.equal(1);
    expect(moved(before, after, 'gateway_requests_total{endpoint="chat",model="openai/gpt-4o-mini",status="429"}')).to.equal(1);
    // the provider was called by five of them: ok, provider error, stream, broken stream, the limited key's first
    expect(moved(before, after, 'gateway_provider_latency_seconds_count{endpoint="chat"}')).to.equal(5);
    expect(moved(before, after, 'gateway_overhead_seconds_count{endpoint="chat"}')).to.equal(5);
    expect(moved(before, after, 'gateway_stream_first_byte_seconds_count{endpoint="chat"}'), 'the two streams').to.equal(2);
    expect(after.get('gateway_stream_first_byte_seconds_sum{endpoint="chat"}')).to.be.greaterThan(0);
    expect(moved(before, after, 'gateway_rate_limit_rejections_total{reason="requests"}')).to.equal(1);
    expect(moved(before, after, 'gateway_rate_limit_rejections_total{reason="tokens"}')).to.equal(0);
    expect(moved(before, after, 'gateway_provider_errors_total{provider="openai",kind="status_5xx"}')).to.equal(1);
    expect(moved(before, after, 'gateway_provider_errors_total{provider="openai",kind="connection"}'), 'the broken stream').to.equal(1);
    expect(after.get('gateway_rate_limit_settle_failures_total')).to.equal(0);

    // every event written went through the measured append: the batch sizes add up to what the streams grew by
    const written = (await accountEvents()) - eventsBefore;
    expect(written, 'a reserve and a close for each of the five requests that reached the provider').to.equal(10);
    expect(moved(before, after, 'gateway_event_append_batch_size_sum')).to.equal(written);
    expect(moved(before, after, 'gateway_event_append_batch_size_count')).to.equal(moved(before, after, 'gateway_event_append_seconds_count{outcome="ok"}'));

    const text = (await scrape()).text;
    for (const secretValue of [keyId, orgId, secret, limited.keyId, limited.orgId, limited.secret, streamed.headers.get('x-request-id')!, TEST_ADMIN_TOKEN, METRICS_TOKEN]) {
      expect(text, 'no key, organization, request id or token in the output').to.not.contain(secretValue);
    }
  });

  it('shows open reservations and the money they hold across the cluster, from the read models', async () => {
    const { orgId, secret } = await harness.customer('10');
    await eventually(async () => expect((await scrape()).samples.get('gateway_open_reservations')).to.equal(0), 2_000);
    let release!: () => void;
    harness.openai.enqueue({ path: '/v1/images/generations', images: ['aW1hZ2Ux', 'aW1hZ2Uy'], holdUntil: new Promise<void>((resolve) => (release = resolve)) });
    const answer = fetch(`${harness.gateway.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-image-1', prompt: 'a lighthouse', n: 2 }),
    });
    try {
      await eventually(async () => {
        const { samples } = await scrape();
        expect(samples.get('gateway_open_reservations')).to.equal(1);
        // 2 images at $0.04 each = $0.08 = 80,000,000 nanodollars (gpt-image-1 has no prompt price in the test catalog)
        expect(samples.get('gateway_reserved_nanodollars')).to.equal(80_000_000);
      }, 3_000);
    } finally {
      release();
    }
    expect((await answer).status).to.equal(200);
    await harness.settledMoney(orgId);
    await eventually(async () => {
      const { samples } = await scrape();
      expect(samples.get('gateway_open_reservations')).to.equal(0);
      expect(samples.get('gateway_reserved_nanodollars')).to.equal(0);
    }, 3_000);
  });

  it('shows each projection’s lag, and the event store’s appends by outcome', async () => {
    const { samples } = await scrape();
    for (const projection of ['access', 'ledger']) {
      expect(samples.get(`gateway_projection_lag_events{projection="${projection}"}`), projection).to.be.a('number').and.at.least(0);
      expect(samples.get(`gateway_projection_lag_seconds{projection="${projection}"}`), projection).to.be.a('number').and.at.least(0);
    }
    for (const outcome of ['ok', 'conflict', 'error']) expect(samples.has(`gateway_event_append_seconds_count{outcome="${outcome}"}`), outcome).to.equal(true);
    expect(samples.get('gateway_event_append_seconds_count{outcome="ok"}')).to.be.greaterThan(0);
  });
});

/**
 * Production mode without ADMIN_TOKEN: the admin API is off, and so is /metrics unless METRICS_TOKEN gives
 * the scraper a token of its own (an operator who set no token expects nothing to be readable).
 */
describe('GET /metrics without an admin token', () => {
  for (const [title, env, token, status] of [
    ['is off when no token is set', {}, 'any-token-at-all-0123456789', 401],
    ['answers METRICS_TOKEN alone', { METRICS_TOKEN }, METRICS_TOKEN, 200],
  ] as const) {
    it(title, async () => {
      const gateway = await startTestGateway({ ADMIN_TOKEN: '', ...env });
      try {
        expect(gateway.adminToken).to.equal(undefined);
        expect((await fetch(`${gateway.url}/metrics`)).status).to.equal(401);
        const response = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
        expect(response.status).to.equal(status);
        await response.text();
      } finally {
        await gateway.dispose();
      }
    });
  }
});

/**
 * Process and request metrics matter most while a store is down: a scrape then still answers, without the
 * read-model gauges, and counts the sources it could not read.
 */
describe('GET /metrics while Postgres is away', function () {
  this.timeout(60_000);

  it('answers with what it has and counts the sources it could not read', async () => {
    const scratch = await createScratchDatabase('metrics_outage');
    const target = new URL(scratch.url);
    let proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const proxied = new URL(scratch.url);
    proxied.port = String(proxy.port);
    const gateway = await startTestGateway({ DATABASE_URL: proxied.toString(), METRICS_TOKEN });
    const scrape = async () => {
      const response = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      return { status: response.status, samples: parseExposition(await response.text()) };
    };
    try {
      const healthy = await scrape();
      expect(healthy.status).to.equal(200);
      expect(healthy.samples.get('gateway_open_reservations')).to.equal(0);
      expect(healthy.samples.has('gateway_metrics_source_errors_total{source="reservations"}')).to.equal(false);

      await proxy.close();
      const away = await scrape();
      expect(away.status).to.equal(200);
      expect(away.samples.get('gateway_metrics_source_errors_total{source="reservations"}')).to.equal(1);
      expect(away.samples.get('gateway_metrics_source_errors_total{source="projections"}')).to.equal(1);
      expect(away.samples.get('process_cpu_user_seconds_total')).to.be.greaterThan(0);
    } finally {
      // back where the pool reconnects, so the gateway stops cleanly
      proxy = await startTcpProxy(target.hostname, Number(target.port || 5432), Number(proxied.port));
      await gateway.dispose();
      await proxy.close();
      await scratch.drop();
    }
  });
});
