import { expect } from 'chai';
import { eventually } from '../support/eventually.js';
import { useGatewayHarness } from '../support/gateway-harness.js';
import { postText, textRequest } from '../support/text-format-client.js';

/**
 * The request log through the admin API, on real requests through the gateway: an organization's pages
 * and the one across all, newest first by keyset, each filter, and one request's events from the log.
 */
describe('admin API: request log', function () {
  this.timeout(60_000);
  const harness = useGatewayHarness();
  const chat = (secret: string) => postText(harness().gateway.url, 'chat', secret, textRequest('chat', 'openai/gpt-4o-mini', { stream: false, maxTokens: 100 }));
  const messages = (secret: string) => postText(harness().gateway.url, 'messages', secret, textRequest('messages', 'anthropic/claude-sonnet-4-5', { stream: false, maxTokens: 100 }));
  /** The organization's log once `count` requests of it are closed in the read model. */
  const settledLog = async (orgId: string, count: number, query = '') => {
    let page: any;
    await eventually(async () => {
      page = await harness().admin.ok('GET', `/organizations/${orgId}/requests?limit=100${query}`);
      expect(page.data.filter((request: { status: string }) => request.status !== 'open')).to.have.length(count);
    });
    return page;
  };

  it("lists an organization's requests newest first: endpoint, status, tokens by kind, cost and duration", async () => {
    const { openai, anthropic } = harness();
    const { orgId, keyId, secret } = await harness().customer('5');
    openai.enqueue({ usage: { inputTokens: 12, outputTokens: 7 } });
    expect((await chat(secret)).status).to.equal(200);
    anthropic.enqueue({ usage: { inputTokens: 20, outputTokens: 10, cachedInputTokens: 5 } });
    expect((await messages(secret)).status).to.equal(200);
    openai.enqueue({ error: { status: 500 } });
    expect((await chat(secret)).status).to.equal(500);
    const page = await settledLog(orgId, 3);
    expect(page).to.deep.include({ object: 'list', has_more: false, first_id: page.data[0].id, last_id: page.data[2].id });
    const [failed, answered, first] = page.data;
    expect(first).to.deep.include({
      object: 'request',
      organization_id: orgId,
      organization_name: 'Test org',
      key_id: keyId,
      key_name: 'test key',
      endpoint: 'chat',
      model: 'openai/gpt-4o-mini',
      type: 'text',
      status: 'settled',
      release_reason: null,
      error: false,
      // 12 × 0.15 + 7 × 0.60 per million tokens
      cost_usd: '0.000006',
      overrun_usd: '0.00',
      // the counts the provider reported, zeros included
      usage: { input_tokens: 12, cached_input_tokens: 0, output_tokens: 7, reasoning_tokens: 0 },
    });
    expect(first.id).to.match(/^gen-/);
    expect(first.duration_ms).to.be.a('number').and.at.least(0);
    expect(Date.parse(first.closed_at) - Date.parse(first.reserved_at)).to.equal(first.duration_ms);
    // the messages format counts cached tokens apart from input_tokens: 25 in all, 5 of them cached
    expect(answered).to.deep.include({ endpoint: 'messages', model: 'anthropic/claude-sonnet-4-5', status: 'settled', usage: { input_tokens: 25, cached_input_tokens: 5, cache_write_tokens: 0, output_tokens: 10 } });
    expect(failed).to.deep.include({ endpoint: 'chat', status: 'released', release_reason: 'provider_error', error: true, cost_usd: '0.00', usage: null });
    expect(Date.parse(failed.reserved_at)).to.be.at.least(Date.parse(answered.reserved_at));
  });

  it('pages by keyset without a request twice, and starts a page at a given request', async () => {
    const { orgId, secret } = await harness().customer('5');
    for (let index = 0; index < 5; index++) expect((await chat(secret)).status).to.equal(200);
    const all = (await settledLog(orgId, 5)).data.map((request: { id: string }) => request.id);
    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 1; ; pages++) {
      const page = await harness().admin.ok('GET', `/organizations/${orgId}/requests?limit=2${after ? `&after=${after}` : ''}`);
      seen.push(...page.data.map((request: { id: string }) => request.id));
      if (!page.has_more) {
        expect(pages).to.equal(3);
        break;
      }
      after = page.last_id;
    }
    expect(seen).to.deep.equal(all);
    const fromThird = await harness().admin.ok('GET', `/organizations/${orgId}/requests?limit=2&from_id=${all[2]}`);
    expect(fromThird.data.map((request: { id: string }) => request.id)).to.deep.equal(all.slice(2, 4));
    expect(fromThird.has_more).to.equal(true);
  });

  it('filters by key, model, endpoint, status and time, per organization and across all', async () => {
    const { admin, openai } = harness();
    const { orgId, keyId, secret } = await harness().customer('5');
    const other = await admin.ok('POST', `/organizations/${orgId}/keys`, { name: 'second key' });
    const started = new Date().toISOString();
    expect((await chat(secret)).status).to.equal(200);
    expect((await messages(other.key)).status).to.equal(200);
    openai.enqueue({ error: { status: 503 } });
    expect((await chat(other.key)).status).to.equal(503);
    await settledLog(orgId, 3);
    const ids = async (query: string, path = `/organizations/${orgId}/requests`) =>
      (await admin.ok('GET', `${path}?${query}`)).data.map((request: { key_id: string; endpoint: string; status: string }) => `${request.key_id === keyId ? 'first' : 'second'} ${request.endpoint} ${request.status}`);
    expect(await ids(`key_id=${keyId}`)).to.deep.equal(['first chat settled']);
    expect(await ids(`key_id=${other.id}`)).to.deep.equal(['second chat released', 'second messages settled']);
    expect(await ids('model=anthropic/claude-sonnet-4-5')).to.deep.equal(['second messages settled']);
    expect(await ids('endpoint=chat')).to.deep.equal(['second chat released', 'first chat settled']);
    expect(await ids('status=error')).to.deep.equal(['second chat released']);
    expect(await ids('status=settled&endpoint=chat')).to.deep.equal(['first chat settled']);
    expect(await ids(`to=${started}`)).to.deep.equal([]);
    expect(await ids(`from=${started}&key_id=${other.id}`, '/requests')).to.deep.equal(['second chat released', 'second messages settled']);
    expect(await ids(`from=${new Date(Date.now() + 60_000).toISOString()}`, '/requests')).to.deep.equal([]);
  });

  it("shows one request with its reserve and settle events from the log, amounts in USD", async () => {
    const { orgId, secret } = await harness().customer('5');
    harness().openai.enqueue({ usage: { inputTokens: 12, outputTokens: 7 } });
    const answer = await chat(secret);
    const requestId = answer.headers.get('x-request-id')!;
    await settledLog(orgId, 1);
    const request = await harness().admin.ok('GET', `/requests/${requestId}`);
    expect(request).to.deep.include({ id: requestId, organization_id: orgId, status: 'settled', reserved_usd: '0.00006165', cost_usd: '0.000006' });
    expect(request.events.map(({ recorded_at, occurred_at, deadline, ...event }: any) => event)).to.deep.equal([
      // 'hello': 11 tokens counted with the tokenizer's margin × 0.15 + 100 × 0.60 per million = 61,650 n$
      { type: 'FundsReserved', stream: `account-${orgId}`, revision: '1', schema_version: 2, caused_by: requestId, amount_usd: '0.00006165' },
      { type: 'ReservationSettled', stream: `account-${orgId}`, revision: '2', schema_version: 3, caused_by: requestId, cost_usd: '0.000006', overrun_usd: '0.00', usage: { input_tokens: 12, cached_input_tokens: 0, output_tokens: 7, reasoning_tokens: 0 } },
    ]);
    expect(request.events[0].occurred_at).to.equal(request.reserved_at);
    expect(request.events[1].occurred_at).to.equal(request.closed_at);
  });

  it('refuses a bad query with 400 invalid_request, and answers 404 for an unknown organization or request', async () => {
    const { orgId } = await harness().customer('1');
    for (const query of ['limit=0', 'limit=101', 'status=failed', 'from=yesterday', 'to=2026-13-01', 'after=gen-a&from_id=gen-b', 'page=2']) {
      const { status, body } = await harness().admin.call('GET', `/organizations/${orgId}/requests?${query}`);
      expect(status, query).to.equal(400);
      expect(body.error.code, query).to.equal('invalid_request');
    }
    expect((await harness().admin.call('GET', '/requests?status=failed')).status).to.equal(400);
    expect((await harness().admin.call('GET', '/organizations/org_doesnotexist/requests')).body.error.code).to.equal('resource_not_found');
    expect((await harness().admin.call('GET', '/requests/gen-doesnotexist')).body.error.code).to.equal('resource_not_found');
    expect((await fetch(`${harness().gateway.url}/admin/v1/requests`)).status).to.equal(401);
  });
});
