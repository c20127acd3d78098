import { expect } from 'chai';
import { NO_LIMITS, type BudgetAlertRules } from '../../../src/access/access-events.js';
import type { GlobalPosition } from '../../../src/eventstore/event-store.js';
import { deterministicUuid } from '../../../src/ids/deterministic-uuid.js';
import { AlertFold, type AlertEvent, type AlertTables } from '../../../projections/budget-alert-fold.js';

/**
 * The budget alerts projection's fold, in memory: which charge raises which alert, once; when an alert is
 * armed again; and that only the first decision of an event queues its delivery (a rebuild decides again
 * and queues nothing). Amounts in n$: the key's daily limit is 10,000 and its monthly 100,000.
 */
const ORG = 'org_1';
const DAY = '2026-11-21T10:00:00.000Z';
let revision = 0n;

function event(type: string, data: Record<string, unknown>, at = DAY, streamId = `account-${ORG}`): AlertEvent {
  return {
    id: deterministicUuid(`test-event-${streamId}-${revision}`),
    type,
    data,
    metadata: { schemaVersion: 1, occurredAt: at, causedBy: 'gen-test' },
    streamId,
    revision: revision++,
    position: 'p' as GlobalPosition,
    recordedAt: new Date(at),
  } as AlertEvent;
}

const credits = (amount: number, at = DAY) => event('CreditsAdded', { amount: String(amount), idempotencyKey: null }, at);
const reserve = (id: string, at = DAY, owner: { employeeId?: string; teamId?: string } = {}) =>
  event('FundsReserved', { reservationId: id, endpoint: 'chat', keyId: 'key_1', employeeId: owner.employeeId ?? null, teamId: owner.teamId ?? null, spaceId: null, model: 'm', category: 'text', amount: '1', deadline: at }, at);
const settle = (id: string, cost: number, at = DAY) => event('ReservationSettled', { reservationId: id, cost: String(cost), usage: { version: 2 }, overrun: '0', piiMaskingFee: '0' }, at);
const rules = (value: BudgetAlertRules) => event('BudgetAlertsChanged', value as unknown as Record<string, unknown>, DAY, `org-${ORG}`);

function emptyTables(): AlertTables {
  return { organizations: new Map(), reservations: new Map(), spend: new Map(), limits: new Map(), raised: new Map(), decided: new Map() };
}

/** Folds the events on `tables` (kept across calls, as the tables are across batches) and returns the alerts queued. */
function fold(tables: AlertTables, ...events: AlertEvent[]): Array<{ type: string; data: Record<string, unknown> }> {
  const batch = new AlertFold(tables);
  for (const each of events) batch.apply(each);
  return batch.deliveries.map((delivery) => JSON.parse(delivery.body) as { type: string; data: Record<string, unknown> });
}

/** An organization whose key has limits of 10,000 a day and 100,000 a month, with 1,000,000 of credits. */
function organization(alertRules: BudgetAlertRules): AlertTables {
  const tables = emptyTables();
  fold(
    tables,
    event('OrganizationCreated', { orgId: ORG, name: 'Acme', piiMasking: false, spendLimits: NO_LIMITS }, DAY, `org-${ORG}`),
    event('KeyIssued', { keyId: 'key_1', orgId: ORG, limits: { overall: { daily: '10000', monthly: '100000' }, byType: {}, byModel: {} } }, DAY, 'key-key_1'),
    credits(1_000_000),
    rules(alertRules),
  );
  return tables;
}

const keyAt = (percents: number[]): BudgetAlertRules => ({ limitPercentages: [{ scope: 'key', id: null, percents }], lowBalance: null });
const thresholds = (alerts: Array<{ data: Record<string, unknown> }>) => alerts.map(({ data }) => `${data.period} ${data.threshold_percent}`);

describe('budget alerts projection: the fold', () => {
  it('raises a percentage of the daily limit once, at the charge that reaches it', () => {
    const tables = organization(keyAt([50, 80]));
    expect(fold(tables, reserve('gen-1'), settle('gen-1', 4_999))).to.deep.equal([]);
    const [crossed, ...others] = fold(tables, reserve('gen-2'), settle('gen-2', 1));
    expect(others).to.deep.equal([]);
    expect(crossed).to.deep.equal({
      type: 'budget.threshold_crossed',
      timestamp: DAY,
      data: { organization_id: ORG, scope: 'key', scope_id: 'key_1', period: 'day', period_start: '2026-11-21', threshold_percent: 50, limit_usd: '0.00001', spent_usd: '0.000005', request_id: 'gen-2' },
    });
    expect(fold(tables, reserve('gen-3'), settle('gen-3', 2_000)), 'already raised today').to.deep.equal([]);
    // the charge that reaches 80 % raises it alone: 50 % stays raised
    expect(thresholds(fold(tables, reserve('gen-4'), settle('gen-4', 3_000)))).to.deep.equal(['day 80']);
  });

  it('raises again in the next day, and for a changed limit', () => {
    const tables = organization(keyAt([50]));
    expect(thresholds(fold(tables, reserve('gen-1'), settle('gen-1', 6_000)))).to.deep.equal(['day 50']);
    const nextDay = '2026-11-22T00:00:01.000Z';
    expect(thresholds(fold(tables, reserve('gen-2', nextDay), settle('gen-2', 5_000, nextDay)))).to.deep.equal(['day 50']);
    fold(tables, event('KeyChanged', { limits: { overall: { daily: '20000', monthly: '100000' }, byType: {}, byModel: {} } }, nextDay, 'key-key_1'));
    expect(thresholds(fold(tables, reserve('gen-3', nextDay), settle('gen-3', 4_999, nextDay))), '9,999 of 20,000').to.deep.equal([]);
    // 10,000 of the new 20,000 (the month's 16,000 is not yet 50 % of 100,000)
    expect(thresholds(fold(tables, reserve('gen-4', nextDay), settle('gen-4', 1, nextDay)))).to.deep.equal(['day 50']);
  });

  it('watches the monthly limit too, and a rule naming the key instead of every key', () => {
    const tables = organization({ limitPercentages: [{ scope: 'key', id: null, percents: [100] }, { scope: 'key', id: 'key_1', percents: [10] }], lowBalance: null });
    // 10,000 is 100 % of the day, which the named rule does not watch, and 10 % of the month
    expect(thresholds(fold(tables, reserve('gen-1'), settle('gen-1', 10_000)))).to.deep.equal(['day 10', 'month 10']);
  });

  it("counts a charge for the organization, the key's team and its employee", () => {
    const tables = organization({ limitPercentages: [{ scope: 'organization', id: null, percents: [50] }, { scope: 'team', id: null, percents: [50] }, { scope: 'employee', id: 'emp_1', percents: [50] }], lowBalance: null });
    fold(
      tables,
      event('OrganizationChanged', { spendLimits: { daily: '1000', monthly: null } }, DAY, `org-${ORG}`),
      event('TeamCreated', { teamId: 'team_1', name: 'Data', spendLimits: { daily: '2000', monthly: null } }, DAY, `org-${ORG}`),
      event('EmployeeCreated', { employeeId: 'emp_1', name: 'Ada', teamId: 'team_1', spendLimits: { daily: null, monthly: '100' } }, DAY, `org-${ORG}`),
    );
    const alerts = fold(tables, reserve('gen-1', DAY, { teamId: 'team_1', employeeId: 'emp_1' }), settle('gen-1', 1_000));
    expect(alerts.map(({ data }) => `${data.scope} ${data.period}`)).to.deep.equal(['organization day', 'team day', 'employee month']);
  });

  it('alerts on a low balance once, armed again only by a top-up back to the level', () => {
    const tables = organization({ limitPercentages: [], lowBalance: '999000' });
    const [low] = fold(tables, reserve('gen-1'), settle('gen-1', 1_001));
    expect(low).to.deep.equal({ type: 'balance.low', timestamp: DAY, data: { organization_id: ORG, threshold_usd: '0.000999', balance_usd: '0.000998999', request_id: 'gen-1' } });
    expect(fold(tables, reserve('gen-2'), settle('gen-2', 1))).to.deep.equal([]);
    // 998,998 + 1 = 998,999: still below, still raised
    expect(fold(tables, credits(1), reserve('gen-3'), settle('gen-3', 1))).to.deep.equal([]);
    // + 1,000 = 999,998 ≥ 999,000: armed again, and the next charge that falls below alerts
    expect(fold(tables, credits(1_000), reserve('gen-4'), settle('gen-4', 998))).to.deep.equal([]);
    expect(fold(tables, reserve('gen-5'), settle('gen-5', 1)).map(({ type }) => type)).to.deep.equal(['balance.low']);
  });

  it('charges a cut-off request, not a released or expired one, and alerts nobody without rules', () => {
    const tables = organization(keyAt([50]));
    expect(fold(tables, reserve('gen-1'), event('ReservationReleased', { reservationId: 'gen-1', reason: 'provider_error' }), reserve('gen-2'), event('ReservationExpired', { reservationId: 'gen-2' }))).to.deep.equal([]);
    expect(thresholds(fold(tables, reserve('gen-3'), event('ReservationCutOff', { reservationId: 'gen-3', cost: '5000', usage: { version: 2 }, piiMaskingFee: '0' })))).to.deep.equal(['day 50']);
    const silent = organization(keyAt([50]));
    fold(silent, event('BudgetAlertsChanged', { limitPercentages: [], lowBalance: null }, DAY, `org-${ORG}`));
    expect(fold(silent, reserve('gen-4'), settle('gen-4', 9_000))).to.deep.equal([]);
    expect(silent.organizations.get(ORG)!.settled, 'spend is followed all the same').to.equal(9_000n);
  });

  it('queues the delivery of an event only at its first decision: a replay raises the alert and sends nothing', () => {
    const charge = [reserve('gen-1'), settle('gen-1', 5_000)] as const;
    const live = organization(keyAt([50]));
    const first = new AlertFold(live);
    for (const each of charge) first.apply(each);
    expect(first.deliveries.map((delivery) => delivery.deliveryId)).to.deep.equal([deterministicUuid(`budget-alert\0${charge[1].id}\0limit|key:key_1|day:2026-11-21|50|10000`)]);

    // a rebuild: the same events on fresh tables, with the decisions the live generation recorded
    const rebuilt = organization(keyAt([50]));
    for (const [stream, decided] of live.decided) rebuilt.decided.set(stream, decided);
    const replay = new AlertFold(rebuilt);
    for (const each of charge) replay.apply(each);
    expect(replay.deliveries).to.deep.equal([]);
    expect([...rebuilt.raised.get(ORG)!.keys()], 'raised all the same: the next charge does not raise it').to.deep.equal(['limit|key:key_1|day:2026-11-21|50|10000']);
  });
});
