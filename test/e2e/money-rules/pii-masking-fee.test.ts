import { expect } from 'chai';
import { parseUsd } from '../../../src/billing/money.js';
import { npmRunAudit } from '../../support/audit-cli.js';
import { eventually } from '../../support/eventually.js';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import { chat, DEFAULT_COST, postChat } from './money-rules-kit.js';

/**
 * The PII masking fee, through the request (amounts from money-rules-kit.ts and the test catalog's
 * `pii_masking_fee_usd: "0.002"` = 2,000,000 n$): reserved with a masked request, settled with it, recorded
 * in the settle event apart from the tokens, and shown as the type `pii` by the spend report and the audit;
 * a request that is not masked, or whose reservation is released, pays no fee.
 */
const FEE = 2_000_000n;

describe('money rules: the PII masking fee', function () {
  this.timeout(60_000);
  const harness = useGatewayHarness();
  const masked = { 'X-PII-Masking': 'on' };

  it('is reserved with a masked request: a balance that covers the tokens but not the fee is 402, unmasked it is served', async () => {
    // chat(100) reserves 1,650 + 60,000 = 61,650 n$; masked, 61,650 + 2,000,000 = 2,061,650 n$. A balance one
    // nanodollar short of that refuses the masked request and serves the same request unmasked (charged 6,000 n$).
    const { orgId, secret } = await harness().admin.organizationWithKey({ credits: '0.002061649', organization: { pii_masking: true } });
    const refused = await postChat(harness(), secret, chat(100), masked);
    expect([refused.status, refused.body.error.code]).to.deep.equal([402, 'insufficient_funds']);
    expect(refused.headers.get('x-pii-masking')).to.equal('applied');
    const served = await postChat(harness(), secret, chat(100), { 'X-PII-Masking': 'off' });
    expect(served.status).to.equal(200);
    expect((await harness().settledMoney(orgId)).balance).to.equal(2_061_649n - DEFAULT_COST);
  });

  it('is settled with the request and recorded apart in the settle event; a released request pays nothing', async () => {
    const { orgId, secret } = await harness().admin.organizationWithKey({ credits: '1', organization: { pii_masking: true } });
    const answer = await postChat(harness(), secret, chat(100));
    expect([answer.status, answer.headers.get('x-pii-masking')]).to.deep.equal([200, 'applied']);
    // 6,000 n$ of tokens + 2,000,000 n$ of masking = 2,006,000 n$
    expect((await harness().settledMoney(orgId)).balance).to.equal(1_000_000_000n - 2_006_000n);
    harness().openai.enqueue({ error: { status: 500 } });
    expect((await postChat(harness(), secret, chat(100))).status).to.equal(500);
    expect((await harness().settledMoney(orgId)).balance, 'released: no fee').to.equal(1_000_000_000n - 2_006_000n);

    const events = await harness().gateway.store.readStream(`account-${orgId}`);
    const settled = events.filter((event) => event.type === 'ReservationSettled');
    expect(settled).to.have.length(1);
    expect(settled[0]!.metadata.schemaVersion).to.equal(3);
    expect(settled[0]!.data).to.deep.include({ cost: '2006000', piiMaskingFee: String(FEE) });
    expect((settled[0]!.data as { usage: object }).usage).to.deep.include({ inputTokens: 12, outputTokens: 7, piiMaskedRequests: 1 });
    expect(events.map((event) => event.type)).to.include('ReservationReleased');
  });

  it('shows in the spend report and the audit as the type pii, and the audit verifies', async () => {
    const { orgId, secret } = await harness().admin.organizationWithKey({ credits: '1', organization: { pii_masking: true } });
    // two masked requests and one not: text 3 × 6,000 = 18,000 n$ over 3 requests; pii 2 × 2,000,000 = 4,000,000 n$
    for (const headers of [{}, masked, { 'X-PII-Masking': 'off' }]) expect((await postChat(harness(), secret, chat(100), headers)).status).to.equal(200);
    await harness().settledMoney(orgId);
    await eventually(async () => {
      const report = await harness().admin.ok('GET', `/organizations/${orgId}/spend?group_by=type`);
      const noKind = { input_usd: '0.00', cached_input_usd: '0.00', cache_write_usd: '0.00', output_usd: '0.00', reasoning_usd: '0.00', audio_usd: '0.00', media_usd: '0.00' };
      // the fee is no kind of token; the text is 3 × (12 × 150) = 5,400 n$ of input and 3 × (7 × 600) = 12,600 of output
      expect(report.data).to.deep.equal([
        { type: 'pii', cost_usd: '0.004', requests: 0, cost_by_kind: noKind },
        { type: 'text', cost_usd: '0.000018', requests: 3, cost_by_kind: { ...noKind, input_usd: '0.0000054', output_usd: '0.0000126' } },
      ]);
      expect(parseUsd(report.total_usd)).to.equal(4_018_000n);
    }, 10_000);
    const audit = await harness().admin.ok('GET', `/audit?organization_id=${orgId}&group_by=type&format=json`);
    const groups = audit.data[0].groups.map((group: Record<string, unknown>) => [group.type, group.requests, group.spend_usd]);
    expect(groups).to.deep.equal([
      ['pii', 0, '0.004'],
      ['text', 3, '0.000018'],
    ]);
    const reconciled = await npmRunAudit(['--org', orgId, '--group-by', 'type', '--reconcile']);
    expect(reconciled.code, reconciled.stderr).to.equal(0);
    const verified = await npmRunAudit(['verify', '--org', orgId]);
    expect(verified.code, verified.stderr + verified.stdout).to.equal(0);
  });
});
