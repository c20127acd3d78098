import { expect } from 'chai';
import { createUsage } from '../../../src/billing/usage.js';
import { auditCsv, auditJson } from '../../../src/audit/audit-format.js';
import { balanceOfAccount, emptyLedgerFold, foldAccountEvent, reservedOfAccount, type LedgerFold } from '../../../src/audit/audit-fold.js';
import { buildAuditReport, type AuditFilter } from '../../../src/audit/audit-report.js';
import { NOT_ANSWERED, type AccountEvent } from '../../../src/ledger/account-events.js';
import { balanceOf } from '../../../src/ledger/account-state.js';

/**
 * A scripted history of two organizations over two UTC days, folded event by event; every expected
 * figure below is worked out by hand in the comments (1 USD = 1,000,000,000 nanodollars).
 */
const owner = (keyId: string, spaceId: string | null = null) => ({ keyId, employeeId: null, teamId: null, spaceId });
const reserve = (id: string, amount: string, keyId: string, model = 'openai/gpt-4o-mini', spaceId: string | null = null): AccountEvent => ({
  type: 'FundsReserved',
  data: { ...owner(keyId, spaceId), reservationId: id, endpoint: 'chat', model, category: model.includes('image') ? 'image' : 'text', amount, priceVersion: null, serviceTier: null, deadline: '2026-11-30T00:00:00.000Z', heldBy: null },
});
const settle = (id: string, cost: string, overrun = '0', costByKind: Record<string, string> = {}): AccountEvent => ({
  type: 'ReservationSettled',
  data: { reservationId: id, cost, usage: createUsage({ inputTokens: 1 }), overrun, piiMaskingFee: '0', costByKind, priceVersion: null, serviceTier: null, ...NOT_ANSWERED },
});

function history(): LedgerFold {
  const fold = emptyLedgerFold({ accountState: true });
  const at = (orgId: string, event: AccountEvent, time: string) => foldAccountEvent(fold, orgId, event, time);
  // org_a, day 1 (2026-11-20): credits 10.00
  at('org_a', { type: 'CreditsAdded', data: { amount: '10000000000', idempotencyKey: null } }, '2026-11-20T08:00:00.000Z');
  // gen-1 reserves 0.50 on key_1, settles 0.20 (no overrun)
  at('org_a', reserve('gen-1', '500000000', 'key_1'), '2026-11-20T09:00:00.000Z');
  at('org_a', settle('gen-1', '200000000'), '2026-11-20T09:00:01.000Z');
  // gen-2 reserves 0.10 late on day 1, settles 0.15 just after midnight: an overrun of 0.05, spend on day 1
  at('org_a', reserve('gen-2', '100000000', 'key_1'), '2026-11-20T23:59:59.000Z');
  at('org_a', settle('gen-2', '150000000', '50000000'), '2026-11-21T00:00:01.000Z');
  // gen-3 (image model, in space spc_x) reserves 0.04 on day 2 and is cut off at 0.03
  at('org_a', reserve('gen-3', '40000000', 'key_2', 'openai/gpt-image-1', 'spc_x'), '2026-11-21T10:00:00.000Z');
  at('org_a', { type: 'ReservationCutOff', data: { reservationId: 'gen-3', cost: '30000000', usage: createUsage({ images: 1 }), piiMaskingFee: '0' , costByKind: {}, priceVersion: null, serviceTier: null, ...NOT_ANSWERED } }, '2026-11-21T10:00:02.000Z');
  // gen-4 released, gen-5 expired, gen-6 still open (0.25), all on day 2, key_1
  at('org_a', reserve('gen-4', '70000000', 'key_1'), '2026-11-21T11:00:00.000Z');
  at('org_a', { type: 'ReservationReleased', data: { reservationId: 'gen-4', reason: 'provider_error' } }, '2026-11-21T11:00:01.000Z');
  at('org_a', reserve('gen-5', '80000000', 'key_1'), '2026-11-21T12:00:00.000Z');
  at('org_a', { type: 'ReservationExpired', data: { reservationId: 'gen-5', reason: 'deadline' } }, '2026-11-21T13:00:00.000Z');
  at('org_a', reserve('gen-6', '250000000', 'key_1'), '2026-11-21T14:00:00.000Z');
  // a second closing of gen-1 changes nothing and is an anomaly
  at('org_a', settle('gen-1', '999000000'), '2026-11-21T15:00:00.000Z');
  at('org_a', { type: 'AccessRulesChanged', data: { stream: 'key-key_1', revision: '3' } }, '2026-11-21T15:00:00.000Z');
  // org_b: credits 1.00 on day 2, one request settled at 0.000000001 (a single nanodollar, all of it input)
  at('org_b', { type: 'CreditsAdded', data: { amount: '1000000000', idempotencyKey: 'top-up-1' } }, '2026-11-21T09:00:00.000Z');
  at('org_b', reserve('gen-7', '5', 'key_9'), '2026-11-21T09:30:00.000Z');
  at('org_b', settle('gen-7', '1', '0', { input: '1' }), '2026-11-21T09:30:01.000Z');
  return fold;
}

const filter = (groupBy: AuditFilter['groupBy'], orgId?: string): AuditFilter => ({ orgId, from: '2026-11-01', to: '2026-11-30', groupBy });

describe('finance audit fold', () => {
  it('computes balance and reserved from credits, settlements, cut-offs and open reservations', () => {
    const a = history().accounts.get('org_a')!;
    // credits 10.00; settled 0.20 + 0.15 + 0.03 (cut-off) = 0.38 → balance 9.62; open: gen-6 0.25
    expect(a.credits).to.equal(10_000_000_000n);
    expect(a.settled).to.equal(380_000_000n);
    expect(balanceOfAccount(a)).to.equal(9_620_000_000n);
    expect(reservedOfAccount(a)).to.equal(250_000_000n);
    // the account decider's own fold of the same events agrees
    expect(balanceOf(a.decided!)).to.equal(9_620_000_000n);
    expect(a.decided!.reserved).to.equal(250_000_000n);
    expect(history().anomalies).to.deep.equal(['org_a: gen-1 closed (ReservationSettled) while not open']);
  });

  it('puts each request on the UTC day its money was reserved, and counts every kind of closing', () => {
    const report = buildAuditReport(history(), filter('day', 'org_a'));
    expect(report.organizations).to.have.length(1);
    const [day1, day2] = report.organizations[0]!.groups;
    // day 1: gen-1 0.20 + gen-2 0.15 = 0.35, two requests, one overrun of 0.05
    expect(day1).to.deep.include({ group: '2026-11-20', requests: 2, spend: 350_000_000n, overruns: 1, overrunAmount: 50_000_000n, openCount: 0 });
    // day 2: gen-3 cut off 0.03, gen-4 released, gen-5 expired (3 closed), gen-6 open 0.25
    expect(day2).to.deep.include({ group: '2026-11-21', requests: 3, spend: 30_000_000n, cutOffs: 1, cutOffAmount: 30_000_000n, released: 1, expired: 1, openCount: 1, openAmount: 250_000_000n });
    expect(report.organizations[0]).to.deep.include({ credits: 10_000_000_000n, requests: 5, spend: 380_000_000n });
  });

  it('filters by period: credits by the day they were added, requests by the day they were reserved', () => {
    const report = buildAuditReport(history(), { orgId: undefined, from: '2026-11-21', to: '2026-11-21', groupBy: 'key' });
    const [a, b] = report.organizations;
    // org_a on day 2: no credits; key_1: gen-4, gen-5 closed (0 spend), gen-6 open; key_2: gen-3 0.03
    expect(a).to.deep.include({ orgId: 'org_a', credits: 0n, requests: 3, spend: 30_000_000n });
    expect(a!.groups.map((group) => [group.group, group.requests, group.spend, group.openCount])).to.deep.equal([
      ['key_1', 2, 0n, 1],
      ['key_2', 1, 30_000_000n, 0],
    ]);
    expect(b).to.deep.include({ orgId: 'org_b', credits: 1_000_000_000n, requests: 1, spend: 1n });
  });

  it('writes the CSV contract: header, rows by organization then group, empty space, formatUsd amounts, \\n', () => {
    expect(auditCsv(buildAuditReport(history(), filter('space')))).to.equal(
      'organization_id,space,requests,spend_usd\n' +
        // org_a without space: gen-1, gen-2, gen-4, gen-5 closed = 4 requests, 0.35; spc_x: gen-3 0.03
        'org_a,,4,0.35\n' +
        'org_a,spc_x,1,0.03\n' +
        'org_b,,1,0.000000001\n',
    );
    expect(auditCsv(buildAuditReport(history(), filter('type', 'org_a')))).to.equal('organization_id,type,requests,spend_usd\norg_a,image,1,0.03\norg_a,text,4,0.35\n');
    expect(auditCsv(buildAuditReport(history(), { orgId: 'org_a', from: '2026-10-01', to: '2026-10-31', groupBy: 'model' }))).to.equal('organization_id,model,requests,spend_usd\n');
  });

  it('renders JSON with USD strings and a null space', () => {
    const json = auditJson(buildAuditReport(history(), filter('space', 'org_b')));
    expect(json).to.deep.equal({
      object: 'audit_report',
      organization_id: 'org_b',
      from: '2026-11-01',
      to: '2026-11-30',
      group_by: 'space',
      data: [
        {
          organization_id: 'org_b',
          credits_usd: '1.00',
          requests: 1,
          spend_usd: '0.000000001',
          spend_by_kind: { input_usd: '0.000000001', cached_input_usd: '0.00', cache_write_usd: '0.00', output_usd: '0.00', reasoning_usd: '0.00', audio_usd: '0.00', media_usd: '0.00' },
          open_reservations: { count: 0, amount_usd: '0.00' },
          overruns: { count: 0, amount_usd: '0.00' },
          cut_offs: { count: 0, amount_usd: '0.00' },
          released: 0,
          expired: 0,
          groups: [
            {
              space: null,
              requests: 1,
              spend_usd: '0.000000001',
              spend_by_kind: { input_usd: '0.000000001', cached_input_usd: '0.00', cache_write_usd: '0.00', output_usd: '0.00', reasoning_usd: '0.00', audio_usd: '0.00', media_usd: '0.00' },
              open_reservations: { count: 0, amount_usd: '0.00' },
              overruns: { count: 0, amount_usd: '0.00' },
              cut_offs: { count: 0, amount_usd: '0.00' },
              released: 0,
              expired: 0,
            },
          ],
        },
      ],
    });
  });

  it('books the PII masking fee of a masked request as spend of the type pii, the request counted once under its model', () => {
    const fold = emptyLedgerFold();
    const at = (event: AccountEvent, time: string) => foldAccountEvent(fold, 'org_m', event, time);
    at({ type: 'CreditsAdded', data: { amount: '1000000000', idempotencyKey: null } }, '2026-11-22T08:00:00.000Z');
    // gen-m1 settles 0.002006 of which the fee is 0.002; gen-m2 is cut off at 0.0020036 of which the fee is 0.002
    at(reserve('gen-m1', '2061650', 'key_m'), '2026-11-22T09:00:00.000Z');
    at({ type: 'ReservationSettled', data: { reservationId: 'gen-m1', cost: '2006000', usage: createUsage({ inputTokens: 12, outputTokens: 7, piiMaskedRequests: 1 }), overrun: '0', piiMaskingFee: '2000000' , costByKind: {}, priceVersion: null, serviceTier: null, ...NOT_ANSWERED } }, '2026-11-22T09:00:01.000Z');
    at(reserve('gen-m2', '2061650', 'key_m'), '2026-11-22T09:01:00.000Z');
    at({ type: 'ReservationCutOff', data: { reservationId: 'gen-m2', cost: '2003600', usage: createUsage({ inputTokens: 12, outputTokens: 3, piiMaskedRequests: 1 }), piiMaskingFee: '2000000' , costByKind: {}, priceVersion: null, serviceTier: null, ...NOT_ANSWERED } }, '2026-11-22T09:01:01.000Z');
    const report = buildAuditReport(fold, filter('type', 'org_m'));
    const [organization] = report.organizations;
    // text: 6,000 + 3,600 = 9,600 n$ over 2 requests; pii: 2 × 2,000,000 = 4,000,000 n$, no request of its own
    expect(organization!.groups.map(({ group, requests, spend, cutOffs, cutOffAmount }) => ({ group, requests, spend, cutOffs, cutOffAmount }))).to.deep.equal([
      { group: 'pii', requests: 0, spend: 4_000_000n, cutOffs: 0, cutOffAmount: 0n },
      { group: 'text', requests: 2, spend: 9_600n, cutOffs: 1, cutOffAmount: 2_003_600n },
    ]);
    expect(organization).to.include({ requests: 2, spend: 4_009_600n });
    expect(balanceOfAccount(fold.accounts.get('org_m')!)).to.equal(1_000_000_000n - 4_009_600n);
  });
});
