import { expect } from 'chai';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import { eventually } from '../../support/eventually.js';
import { chat, MODEL, postChat } from './money-rules-kit.js';

/**
 * Spend counts against every scope of the request that spent it: the key, its employee, the employee's
 * team, the organization, and the space named by `X-Service-Space`. Amounts in n$ (see money-rules-kit.ts:
 * a `chat(cap)` reserves 1,650 + 600 × cap, the default answer costs 6,000).
 */
describe('money rules: team limits and spaces, through the request', function () {
  this.timeout(60_000);
  const current = useGatewayHarness();

  async function teamWithTwoEmployees(dailyUsd: string) {
    const { admin } = current();
    const { orgId } = await admin.organizationWithKey({ credits: '10' });
    const team = await admin.ok('POST', `/organizations/${orgId}/teams`, { name: 'Core', spend_limits: { daily_usd: dailyUsd } });
    const keys: string[] = [];
    for (const name of ['Ada', 'Grace']) {
      const employee = await admin.ok('POST', `/organizations/${orgId}/employees`, { name, team_id: team.id });
      keys.push((await admin.ok('POST', `/organizations/${orgId}/keys`, { employee_id: employee.id })).key);
    }
    return { orgId, teamId: team.id as string, ada: keys[0]!, grace: keys[1]! };
  }

  it("refuses an employee's request that alone exceeds the team's daily limit, with the team named", async () => {
    // team daily limit $0.0001 = 100,000 n$; chat(200) reserves 1,650 + 120,000 = 121,650 n$ > 100,000
    const { ada } = await teamWithTwoEmployees('0.0001');
    current().openai.reset();
    const answer = await postChat(current(), ada, chat(200));
    expect(answer.status, JSON.stringify(answer.body)).to.equal(402);
    expect(answer.body.error).to.include({ type: 'insufficient_quota_error', code: 'spend_limit_exceeded' });
    expect(answer.body.error.message).to.contain('spending limit of the team for the day is exceeded').and.contain('reserves 0.00012165 USD');
    expect(current().openai.requests.length, 'nothing reached the provider').to.equal(0);
  });

  it("counts one employee's spend against a colleague's request through their shared team", async () => {
    const { ada, grace } = await teamWithTwoEmployees('0.0001');
    current().openai.reset();
    // Ada: chat(100) reserves 61,650 ≤ 100,000; it settles at the default 6,000 n$.
    expect((await postChat(current(), ada, chat(100))).status).to.equal(200);
    // Grace: chat(160) reserves 1,650 + 96,000 = 97,650. Alone it fits (97,650 ≤ 100,000), but with Ada's
    // 6,000 the team is at 103,650 > 100,000: refused, and the message names the team.
    const refused = await postChat(current(), grace, chat(160));
    expect(refused.status, JSON.stringify(refused.body)).to.equal(402);
    expect(refused.body.error.code).to.equal('spend_limit_exceeded');
    expect(refused.body.error.message).to.contain('of the team for the day').and.contain('reserves 0.00009765 USD');
    // chat(150) reserves 1,650 + 90,000 = 91,650; with Ada's 6,000 that is 97,650 ≤ 100,000: served.
    expect((await postChat(current(), grace, chat(150))).status).to.equal(200);
    expect(current().openai.requests.length, 'only the two served requests reached the provider').to.equal(2);
  });

  it("counts a request still in flight against the team (its reservation is open)", async () => {
    const { ada, grace } = await teamWithTwoEmployees('0.0001');
    current().openai.reset();
    let open!: () => void;
    current().openai.enqueue({ holdUntil: new Promise<void>((resolve) => (open = resolve)) });
    // Ada's chat(100) holds 61,650 at the provider; Grace's chat(60) reserves 1,650 + 36,000 = 37,650:
    // 61,650 + 37,650 = 99,300 ≤ 100,000 fits; Grace's chat(70) reserves 43,650: 105,300 > 100,000.
    const held = postChat(current(), ada, chat(100));
    await eventually(async () => expect(current().openai.requests.length).to.be.at.least(1));
    const refused = await postChat(current(), grace, chat(70));
    expect(refused.status).to.equal(402);
    expect(refused.body.error.message).to.contain('of the team for the day');
    open();
    expect((await held).status).to.equal(200);
  });

  it("applies the key's limits by model and by type, and the employee's own limit, each named in the 402", async () => {
    const { admin } = current();
    const { orgId } = await admin.organizationWithKey({ credits: '10' });
    // every limit below is $0.0001 = 100,000 n$; chat(200) reserves 1,650 + 120,000 = 121,650 n$ > 100,000,
    // chat(100) reserves 61,650 ≤ 100,000
    const byModel = await admin.ok('POST', `/organizations/${orgId}/keys`, { limits: { by_model: { [MODEL]: { daily_usd: '0.0001' } } } });
    const byType = await admin.ok('POST', `/organizations/${orgId}/keys`, { limits: { by_type: { text: { monthly_usd: '0.0001' } } } });
    const employee = await admin.ok('POST', `/organizations/${orgId}/employees`, { name: 'Ada', spend_limits: { daily_usd: '0.0001' } });
    const ofEmployee = await admin.ok('POST', `/organizations/${orgId}/keys`, { employee_id: employee.id });
    const cases: Array<[string, string, string]> = [
      [byModel.key, 'key_limit_exceeded', 'spending limit of this API key for the day is exceeded for model openai/gpt-4o-mini'],
      [byType.key, 'key_limit_exceeded', 'spending limit of this API key for the month is exceeded for text generation'],
      [ofEmployee.key, 'spend_limit_exceeded', 'spending limit of the employee for the day is exceeded'],
    ];
    for (const [secret, code, message] of cases) {
      const refused = await postChat(current(), secret, chat(200));
      expect(refused.status, message).to.equal(402);
      expect(refused.body.error.code).to.equal(code);
      expect(refused.body.error.message).to.contain(message).and.contain('reserves 0.00012165 USD');
      expect((await postChat(current(), secret, chat(100))).status, message).to.equal(200);
    }
    // the limit by model binds that model only: local/llama ($0.10 / $0.20 per M) reserves
    // 11 × 100 + 200 × 200 = 1,100 + 40,000 = 41,100 n$, and its limit by model is not set
    expect((await postChat(current(), byModel.key, { ...chat(200), model: 'local/llama' })).status).to.equal(200);
  });

  it('reports spend by space as the X-Service-Space header named it', async () => {
    const { admin } = current();
    const { orgId, secret } = await admin.organizationWithKey({ credits: '10' });
    const space = await admin.ok('POST', `/organizations/${orgId}/spaces`, { name: 'research' });
    // In the space: 1,000 input × 150 + 500 output × 600 = 150,000 + 300,000 = 450,000 n$ = $0.00045.
    current().openai.enqueue({ usage: { inputTokens: 1_000, outputTokens: 500 } });
    expect((await postChat(current(), secret, chat(1_000), { 'x-service-space': space.id })).status).to.equal(200);
    // Without a space: the default answer, 6,000 n$ = $0.000006.
    expect((await postChat(current(), secret, chat(100))).status).to.equal(200);
    await eventually(async () => {
      const report = await admin.ok('GET', `/organizations/${orgId}/spend?group_by=space`);
      const kinds = (input: string, output: string) => ({ input_usd: input, cached_input_usd: '0.00', cache_write_usd: '0.00', output_usd: output, reasoning_usd: '0.00', audio_usd: '0.00', media_usd: '0.00' });
      // split by kind: 12 × 150 = 1,800 and 7 × 600 = 4,200 n$; 150,000 and 300,000 n$
      expect(report.data).to.deep.equal([
        { space: null, cost_usd: '0.000006', requests: 1, cost_by_kind: kinds('0.0000018', '0.0000042') },
        { space: space.id, cost_usd: '0.00045', requests: 1, cost_by_kind: kinds('0.00015', '0.0003') },
      ]);
      // 450,000 + 6,000 = 456,000 n$
      expect(report.total_usd).to.equal('0.000456');
      expect(report.total_by_kind).to.deep.equal(kinds('0.0001518', '0.0003042'));
    });
  });
});
