import { expect } from 'chai';
import { sql } from 'kysely';
import OpenAI from 'openai';
import { npmRunAudit } from '../support/audit-cli.js';
import { eventually } from '../support/eventually.js';
import { useGatewayHarness } from '../support/gateway-harness.js';

/**
 * `npm run audit` and `GET /admin/v1/audit` after real requests through the gateway (fake providers), at
 * the test catalog's prices:
 * - chat openai/gpt-4o-mini, 1,000 in + 500 out at $0.15/$0.60 per M = $0.00015 + $0.0003 = $0.00045
 * - chat local/llama in space "research", 2,000 in + 1,000 out at $0.10/$0.20 per M = $0.0002 + $0.0002 = $0.0004
 * - embeddings openai/text-embedding-3-small sent as 500 tokens (reserved exactly: 500 at $0.02 per M =
 *   $0.00001), for which the provider reports 1,000: $0.00002, an overrun of $0.00001
 * - image openai/gpt-image-1, 1 image at $0.04
 * - chat openai/gpt-4o-mini answered 500 by the provider: released, $0
 * Total: $0.00045 + $0.0004 + $0.00002 + $0.04 = $0.04087, five requests, all reserved today (UTC).
 */
describe('finance audit by replay of the event log', function () {
  this.timeout(120_000);
  const current = useGatewayHarness();
  let orgId: string;
  let spaceId: string;
  const today = new Date().toISOString().slice(0, 10);

  before(async () => {
    const harness = current();
    const customer = await harness.customer('10');
    orgId = customer.orgId;
    spaceId = (await harness.admin.ok('POST', `/organizations/${orgId}/spaces`, { name: 'research' })).id;
    const client = new OpenAI({ apiKey: customer.secret, baseURL: `${harness.gateway.url}/v1`, maxRetries: 0 });
    harness.openai.enqueue({ usage: { inputTokens: 1_000, outputTokens: 500 } });
    await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'one' }] });
    harness.openai.enqueue({ usage: { inputTokens: 2_000, outputTokens: 1_000 } });
    await client.chat.completions.create({ model: 'local/llama', messages: [{ role: 'user', content: 'two' }] }, { headers: { 'X-Service-Space': spaceId } });
    harness.openai.enqueue({ path: '/v1/embeddings', usage: { inputTokens: 1_000, outputTokens: 0 } });
    await client.embeddings.create({ model: 'openai/text-embedding-3-small', input: new Array<number>(500).fill(1) });
    await client.images.generate({ model: 'openai/gpt-image-1', prompt: 'four' });
    harness.openai.enqueue({ error: { status: 500 } });
    await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'five' }] }).catch(() => undefined);
    // $10 − $0.04087 = $9.95913
    expect(await harness.settledMoney(orgId)).to.deep.equal({ balance: 9_959_130_000n, reserved: 0n });
  });

  it('prints the CSV contract by model (and the API by type, space and for an empty period)', async () => {
    const byModel = await npmRunAudit(['--org', orgId, '--group-by', 'model', '--format', 'csv']);
    expect(byModel.code, byModel.stderr).to.equal(0);
    expect(byModel.stdout).to.equal(
      'organization_id,model,requests,spend_usd\n' +
        `${orgId},local/llama,1,0.0004\n` +
        `${orgId},openai/gpt-4o-mini,2,0.00045\n` +
        `${orgId},openai/gpt-image-1,1,0.04\n` +
        `${orgId},openai/text-embedding-3-small,1,0.00002\n`,
    );
    // the other groupings through the admin API, which answers the same CSV (checked byte for byte below)
    const csv = async (query: string) => (await fetch(`${current().gateway.url}/admin/v1/audit?organization_id=${orgId}&format=csv&${query}`, { headers: { authorization: `Bearer ${current().admin.token}` } })).text();
    // text: $0.00045 + $0.0004 = $0.00085 over three requests
    expect(await csv('group_by=type')).to.equal(`organization_id,type,requests,spend_usd\n${orgId},embeddings,1,0.00002\n${orgId},image,1,0.04\n${orgId},text,3,0.00085\n`);
    // no space: $0.04087 − $0.0004 = $0.04047 over four requests
    expect(await csv('group_by=space')).to.equal(`organization_id,space,requests,spend_usd\n${orgId},,4,0.04047\n${orgId},${spaceId},1,0.0004\n`);
    expect(await csv('group_by=key&from=2020-01-01&to=2020-01-31')).to.equal('organization_id,key,requests,spend_usd\n');
  });

  it('prints JSON with credits, spend, overruns, released and open reservations', async () => {
    const result = await npmRunAudit(['--org', orgId, '--format', 'json']);
    expect(result.code, result.stderr).to.equal(0);
    const report = JSON.parse(result.stdout);
    expect(report).to.deep.include({ object: 'audit_report', organization_id: orgId, group_by: 'day', to: today });
    expect(report.data).to.have.length(1);
    expect(report.data[0]).to.deep.include({
      organization_id: orgId,
      credits_usd: '10.00',
      requests: 5,
      spend_usd: '0.04087',
      open_reservations: { count: 0, amount_usd: '0.00' },
      overruns: { count: 1, amount_usd: '0.00001' },
      cut_offs: { count: 0, amount_usd: '0.00' },
      released: 1,
      expired: 0,
    });
    expect(report.data[0].groups.map((group: { day: string; requests: number; spend_usd: string }) => [group.day, group.requests, group.spend_usd])).to.deep.equal([[today, 5, '0.04087']]);
    const table = await npmRunAudit(['--org', orgId]);
    expect(table.stdout).to.contain(`organization ${orgId}: credits added 10.00`).and.to.match(new RegExp(`${today}\\s+5\\s+0\\.04087`));
  });

  it('answers the same report through the admin API, the CSV byte for byte', async () => {
    const { admin, gateway } = current();
    const cli = await npmRunAudit(['--org', orgId, '--group-by', 'model', '--format', 'csv']);
    const response = await fetch(`${gateway.url}/admin/v1/audit?organization_id=${orgId}&group_by=model&format=csv`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(await response.text()).to.equal(cli.stdout);
    const json = await admin.ok('GET', `/audit?organization_id=${orgId}&from=${today}&to=${today}`);
    expect(json).to.deep.equal(JSON.parse((await npmRunAudit(['--org', orgId, '--from', today, '--to', today, '--format', 'json'])).stdout));
    expect(json.data[0].spend_usd).to.equal('0.04087');
    for (const [query, status, field] of [
      ['group_by=colour', 400, 'group_by'],
      ['from=yesterday', 400, 'from'],
      ['format=xml', 400, 'format'],
      ['from=2026-02-01&to=2026-01-01', 400, 'from'],
      ['organization_id=org_nobody', 404, ''],
    ] as const) {
      const answer = await admin.call('GET', `/audit?${query}`);
      expect(answer.status, query).to.equal(status);
      expect(answer.body.error.message, query).to.contain(field);
    }
    expect((await fetch(`${gateway.url}/admin/v1/audit`)).status).to.equal(401);
  });

  it('reconciles with the read models, and names a difference planted in spend_daily (exit code 1)', async () => {
    const db = current().gateway.database.kysely;
    await eventually(async () => {
      const { rows } = await sql<{ n: string }>`select coalesce(sum(requests), 0)::text as n from spend_daily where org_id = ${orgId}`.execute(db);
      expect(rows[0]!.n).to.equal('5');
    }, 10_000);
    const clean = await npmRunAudit(['--org', orgId, '--reconcile', '--format', 'csv']);
    expect(clean.code, clean.stderr).to.equal(0);
    expect(clean.stderr).to.contain('no difference');
    // one nanodollar more on the image row of the read model
    await sql`update spend_daily set cost = cost + 1 where org_id = ${orgId} and model = 'openai/gpt-image-1'`.execute(db);
    try {
      const tampered = await npmRunAudit(['--org', orgId, '--reconcile', '--format', 'csv']);
      expect(tampered.code).to.equal(1);
      expect(tampered.stderr).to.contain(`difference: ${orgId} day ${today} spend: log 0.04087, read model spend_daily 0.040870001`);
      const byModel = await current().admin.ok('GET', `/audit/reconcile?organization_id=${orgId}&group_by=model`);
      expect(byModel.differences).to.deep.equal([`${orgId} model openai/gpt-image-1 spend: log 0.04, read model spend_daily 0.040000001`]);
    } finally {
      await sql`update spend_daily set cost = cost - 1 where org_id = ${orgId} and model = 'openai/gpt-image-1'`.execute(db);
    }
    expect((await npmRunAudit(['--org', orgId, '--reconcile'])).code).to.equal(0);
  });

  it('verifies every balance (exit code 0), and names a reserved amount planted in the balances (exit code 1)', async () => {
    const db = current().gateway.database.kysely;
    const clean = await npmRunAudit(['verify']);
    expect(clean.code, clean.stderr).to.equal(0);
    expect(clean.stdout).to.match(/^verified \d+ organizations/);
    await sql`update balances set reserved = reserved + 1000 where org_id = ${orgId}`.execute(db);
    try {
      const tampered = await npmRunAudit(['verify', '--org', orgId]);
      expect(tampered.code).to.equal(1);
      expect(tampered.stderr).to.contain(`mismatch: ${orgId} reserved: log 0.00, read model balances 0.000001`);
    } finally {
      await sql`update balances set reserved = reserved - 1000 where org_id = ${orgId}`.execute(db);
    }
  });

  it('explains bad usage with exit code 2 (the other cases: test/unit/audit/audit-command.test.ts)', async () => {
    const result = await npmRunAudit(['--group-by', 'colour']);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('--group-by').and.to.contain('usage: npm run audit');
  });
});
