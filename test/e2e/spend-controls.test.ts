import { expect } from 'chai';
import { createScratchDatabase } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';
import { chat, gate, postChat } from './money-rules/money-rules-kit.js';

/**
 * The spend controls in the admin API, and the concurrency caps a key and an organization put on requests
 * through the request: the organization's over all its keys, and a running video job holding its key's
 * place until it ends. Its own database, so that no other suite's gateway works on its video jobs.
 */
describe('spend controls through the admin API and the request', function () {
  this.timeout(60_000);
  let harness: GatewayHarness;
  let drop: () => Promise<void>;

  before(async () => {
    const scratch = await createScratchDatabase('spend_controls');
    drop = scratch.drop;
    harness = await startGatewayHarness({ DATABASE_URL: scratch.url });
  });
  after(async () => {
    try {
      await harness?.checkLedger();
    } finally {
      await harness?.close();
      await drop?.();
    }
  });

  const refusal = async (path: string, method: string, body?: unknown) => {
    const answer = await harness.admin.call(method, path, body);
    return { status: answer.status, code: answer.body.error.code as string, param: answer.body.error.param as string | null };
  };

  it('shows and changes the spend controls, refusing rules about another organization or out of range', async () => {
    const { orgId } = await harness.customer('1');
    const other = await harness.customer('1');
    expect(await harness.admin.ok('GET', `/organizations/${orgId}/spend-controls`)).to.deep.equal({
      object: 'spend_controls',
      organization_id: orgId,
      max_concurrent_requests: null,
      budget_alerts: { limit_percentages: [], low_balance_usd: null },
      webhook: null,
    });
    const path = `/organizations/${orgId}/spend-controls`;
    const rules = (limit_percentages: unknown[]) => ({ budget_alerts: { limit_percentages } });
    expect(await refusal(path, 'PATCH', rules([{ scope: 'key', id: other.keyId, percents: [50] }]))).to.deep.equal({ status: 400, code: 'invalid_request', param: 'limit_percentages' });
    expect(await refusal(path, 'PATCH', rules([{ scope: 'key', percents: [0] }]))).to.include({ status: 400, param: 'budget_alerts.limit_percentages.0.percents.0' });
    expect(await refusal(path, 'PATCH', rules([{ scope: 'space', percents: [50] }]))).to.include({ status: 400, param: 'budget_alerts.limit_percentages.0.scope' });
    expect(await refusal(path, 'PATCH', { max_concurrent_requests: 0 })).to.include({ status: 400, param: 'max_concurrent_requests' });
    const changed = await harness.admin.ok('PATCH', path, { max_concurrent_requests: 3, budget_alerts: { limit_percentages: [{ scope: 'organization', percents: [100, 75, 75] }], low_balance_usd: '2.5' } });
    expect(changed).to.deep.include({ max_concurrent_requests: 3, budget_alerts: { limit_percentages: [{ scope: 'organization', id: null, percents: [75, 100] }], low_balance_usd: '2.50' } });
    expect((await harness.admin.ok('PATCH', path, { max_concurrent_requests: null })).max_concurrent_requests).to.equal(null);
  });

  it('makes the webhook secret once, keeps it when the URL moves, rotates it when asked, and never shows it again', async () => {
    const { orgId } = await harness.customer('1');
    expect(await refusal(`/organizations/${orgId}/webhook/test`, 'POST')).to.include({ status: 400, code: 'invalid_request' });
    expect(await refusal(`/organizations/${orgId}/webhook`, 'PUT', { url: 'ftp://hooks.example.com' })).to.include({ status: 400, param: 'url' });
    const made = await harness.admin.ok('PUT', `/organizations/${orgId}/webhook`, { url: 'http://127.0.0.1:9/a' });
    expect(made.secret).to.match(/^whsec_/);
    expect(made.secret_hint).to.equal(`…${made.secret.slice(-4)}`);
    const moved = await harness.admin.ok('PUT', `/organizations/${orgId}/webhook`, { url: 'http://127.0.0.1:9/b' });
    expect(moved).to.deep.equal({ object: 'webhook', organization_id: orgId, url: 'http://127.0.0.1:9/b', secret_hint: made.secret_hint });
    const rotated = await harness.admin.ok('PUT', `/organizations/${orgId}/webhook`, { url: 'http://127.0.0.1:9/b', rotate_secret: true });
    expect(rotated.secret).to.match(/^whsec_/).and.not.equal(made.secret);
    expect((await harness.admin.ok('GET', `/organizations/${orgId}/spend-controls`)).webhook).to.deep.equal({ object: 'webhook', organization_id: orgId, url: 'http://127.0.0.1:9/b', secret_hint: rotated.secret_hint });
    expect((await harness.admin.ok('DELETE', `/organizations/${orgId}/webhook`)).webhook).to.equal(null);
    expect(await refusal(`/organizations/${orgId}/webhook-deliveries/not-an-id/retry`, 'POST')).to.include({ status: 404, code: 'resource_not_found' });
  });

  it('logs a delivery that cannot be sent as pending with its error, and retries only a failed one', async () => {
    const { orgId } = await harness.customer('1');
    // port 9 refuses connections: the first attempt fails at once
    await harness.admin.ok('PUT', `/organizations/${orgId}/webhook`, { url: 'http://127.0.0.1:9/hooks' });
    const sample = await harness.admin.ok('POST', `/organizations/${orgId}/webhook/test`);
    const logged = await eventually(async () => {
      const [delivery] = (await harness.admin.ok('GET', `/organizations/${orgId}/webhook-deliveries`)).data;
      expect(delivery).to.deep.include({ id: sample.id, status: 'pending', attempts: 1, last_status: null });
      return delivery;
    });
    expect(logged.last_error).to.be.a('string').and.not.equal('');
    expect(Date.parse(logged.next_attempt_at) - Date.parse(logged.last_attempt_at)).to.equal(2_000);
    expect(await refusal(`/organizations/${orgId}/webhook-deliveries/${sample.id}/retry`, 'POST')).to.include({ status: 400, code: 'invalid_request' });
  });

  const concurrencyRejections = async () => {
    const text = await (await fetch(`${harness.gateway.url}/metrics`, { headers: { authorization: `Bearer ${harness.admin.token}` } })).text();
    return Number(/^gateway_rate_limit_rejections_total\{reason="concurrency"\} (\d+)$/m.exec(text)?.[1]);
  };

  it("caps the organization's requests of all its keys together", async () => {
    const first = await harness.customer('1');
    const second = await harness.admin.ok('POST', `/organizations/${first.orgId}/keys`, { name: 'second key' });
    await harness.admin.ok('PATCH', `/organizations/${first.orgId}/spend-controls`, { max_concurrent_requests: 1 });
    const held = gate();
    harness.openai.enqueue({ holdUntil: held.promise });
    const running = postChat(harness, first.secret, chat(10));
    await eventually(async () => expect(harness.openai.inFlight).to.equal(1));
    const before = await concurrencyRejections();
    const refused = await postChat(harness, second.key, chat(10));
    expect(refused.status).to.equal(429);
    // the metrics tell it from the per-minute limits' 429s (the series moves once the request is over)
    await eventually(async () => expect((await concurrencyRejections()) - before).to.equal(1));
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(refused.body.error.message).to.equal('the organization already has 1 request running, its max_concurrent_requests; retry when one of them has ended');
    held.open();
    expect((await running).status).to.equal(200);
    expect((await postChat(harness, second.key, chat(10))).status).to.equal(200);
  });

  it('counts a running video job against its key until the job ends', async () => {
    const { secret } = await harness.customer('1', { max_concurrent_requests: 1 });
    harness.openai.enqueue({ path: '/v1/videos', video: { manual: true } });
    const created = await fetch(`${harness.gateway.url}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/sora-2', prompt: 'a lighthouse at dawn', seconds: 4 }),
    });
    expect(created.status).to.equal(200);
    const providerId = await eventually(async () => harness.openai.videos.ids().at(-1) ?? expect.fail('not submitted yet'));
    const refused = await postChat(harness, secret, chat(10));
    expect(refused.status).to.equal(429);
    expect(refused.body.error.message).to.equal('this API key already has 1 request running, its max_concurrent_requests; retry when one of them has ended');
    harness.openai.videos.fail(providerId);
    await eventually(async () => expect((await postChat(harness, secret, chat(10))).status).to.equal(200), 15_000, 250);
  });
});
