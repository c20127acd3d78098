import { expect } from 'chai';
import { createUsage } from '../../../src/billing/usage.js';
import { emptyLedgerFold, foldAccountEvent, zeroSpendByKind, type LedgerFold } from '../../../src/audit/audit-fold.js';
import type { ReadModelSnapshot } from '../../../src/audit/audit-read-models.js';
import { reconcileReport, verifyBalances } from '../../../src/audit/audit-reconcile.js';
import type { AuditFilter } from '../../../src/audit/audit-report.js';
import { NOT_ANSWERED } from '../../../src/ledger/account-events.js';

/**
 * One organization: credits $5, gen-1 reserved $1 and settled at $0.30, gen-2 reserved $0.20 and open.
 * Balance $5 − $0.30 = $4.70, reserved $0.20. The read models are written out by hand to match, then
 * changed one figure at a time.
 */
function log(): LedgerFold {
  const fold = emptyLedgerFold({ accountState: true });
  const time = '2026-11-21T10:00:00.000Z';
  foldAccountEvent(fold, 'org_a', { type: 'CreditsAdded', data: { amount: '5000000000', idempotencyKey: null } }, time);
  const reserve = (reservationId: string, amount: string) =>
    foldAccountEvent(fold, 'org_a', { type: 'FundsReserved', data: { reservationId, endpoint: 'chat', keyId: 'key_1', employeeId: null, teamId: null, spaceId: null, model: 'm', category: 'text', amount, priceVersion: null, serviceTier: null, deadline: time, heldBy: null } }, time);
  reserve('gen-1', '1000000000');
  foldAccountEvent(fold, 'org_a', { type: 'ReservationSettled', data: { reservationId: 'gen-1', cost: '300000000', usage: createUsage({ inputTokens: 1 }), overrun: '0', piiMaskingFee: '0' , costByKind: {}, priceVersion: null, serviceTier: null, ...NOT_ANSWERED } }, time);
  reserve('gen-2', '200000000');
  return fold;
}

function readModels(): ReadModelSnapshot {
  const requests = emptyLedgerFold();
  const spendDaily = emptyLedgerFold();
  const row = { orgId: 'org_a', day: '2026-11-21', keyId: 'key_1', spaceId: null, category: 'text' as const, model: 'm', priceVersion: null };
  const closed = { ...row, requests: 1, spend: 300_000_000n, settled: 1, overruns: 0, overrunAmount: 0n, cutOffs: 0, cutOffAmount: 0n, released: 0, expired: 0 };
  requests.rows.set('r', { ...closed, byKind: zeroSpendByKind() });
  spendDaily.rows.set('r', { ...closed, byKind: zeroSpendByKind() });
  const account = () => ({ orgId: 'org_a', credits: 0n, creditsByDay: new Map(), settled: 0n, open: new Map(), decided: undefined });
  requests.accounts.set('org_a', account());
  requests.accounts.get('org_a')!.open.set('gen-2', { ...row, reservationId: 'gen-2', serviceTier: null, amount: 200_000_000n });
  spendDaily.accounts.set('org_a', account());
  return {
    checkpoint: 'p',
    balances: new Map([['org_a', { credits: 5_000_000_000n, settled: 300_000_000n, reserved: 200_000_000n, balance: 4_700_000_000n }]]),
    requests,
    spendDaily,
  };
}

const filter: AuditFilter = { orgId: undefined, from: '2026-11-01', to: '2026-11-30', groupBy: 'day' };

describe('finance audit reconcile and verify', () => {
  it('finds no difference when the read models match the log', () => {
    expect(reconcileReport(log(), readModels(), filter)).to.deep.equal([]);
    expect(verifyBalances(log(), log(), readModels())).to.deep.equal([]);
  });

  it('names each figure that differs, with both values', () => {
    const changed = readModels();
    changed.spendDaily.rows.get('r')!.spend = 300_000_001n;
    changed.requests.rows.get('r')!.released = 1;
    changed.balances.set('org_a', { credits: 5_000_000_000n, settled: 300_000_000n, reserved: 0n, balance: 4_700_000_000n });
    expect(reconcileReport(log(), changed, filter)).to.deep.equal([
      'org_a day 2026-11-21 released: log 0, read model requests 1',
      'org_a day 2026-11-21 spend: log 0.30, read model spend_daily 0.300000001',
      'org_a reserved: log 0.20, read model balances 0.00',
    ]);
  });

  it('verify reports a balance row that breaks its own equation, an unknown organization, and anomalies of the log', () => {
    const changed = readModels();
    changed.balances.set('org_a', { credits: 5_000_000_000n, settled: 300_000_000n, reserved: 200_000_000n, balance: 4_000_000_000n });
    changed.balances.set('org_ghost', { credits: 1n, settled: 0n, reserved: 0n, balance: 1n });
    const head = log();
    foldAccountEvent(head, 'org_a', { type: 'ReservationExpired', data: { reservationId: 'gen-9', reason: 'deadline' } }, '2026-11-21T11:00:00.000Z');
    expect(verifyBalances(head, log(), changed)).to.deep.equal([
      'org_a: gen-9 closed (ReservationExpired) while not open',
      'org_a balance: log 4.70, read model balances 4.00',
      'org_a balance: read model balances says 4.00, but its credits − settled is 4.70',
      'org_ghost credits: log 0.00, read model balances 0.000000001',
      'org_ghost balance: log 0.00, read model balances 0.000000001',
    ]);
  });
});
