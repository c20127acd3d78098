import { expect } from 'chai';
import { sql } from 'kysely';
import { sweepExpiredReservations } from '../../src/ledger/reservation-sweeper.js';
import { overdueReservationsFrom } from '../../projections/overdue-reservations.js';
import { parseUsd } from '../../src/billing/money.js';
import { systemClock } from '../../src/clock.js';
import type { AccountCommand } from '../../src/ledger/account-decider.js';
import { AdminClient } from '../support/admin-client.js';
import { startTestGateway } from '../support/test-gateway.js';
import { replayAccounts } from '../support/ledger-audit.js';
import { eventually } from '../support/eventually.js';
import { createUsage } from '../../src/billing/usage.js';

type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

describe('ledger read models, spend report and reservation sweeper', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let admin: AdminClient;
  before(async () => {
    gateway = await startTestGateway();
    admin = new AdminClient(gateway.url);
  });
  after(async () => {
    // the balance equation from the log, against the service's view of every account (the log shows an
    // event once every older transaction has ended, so allow it a moment to become visible)
    await eventually(async () => {
      for (const [orgId, account] of await replayAccounts(gateway.store)) {
        const known = await gateway.accounts.balance(orgId);
        expect({ balance: known.balance, reserved: known.reserved }, orgId).to.deep.equal({ balance: account.balance, reserved: account.reserved });
      }
    }, 2_000);
    await gateway.dispose();
  });

  const reserve = (id: string, amount: string, owner: { keyId: string; spaceId?: string }, model = 'openai/gpt-4o-mini', deadline = new Date(Date.now() + 600_000)): AccountCommand => ({
    type: 'ReserveFunds',
    reservationId: id,
    endpoint: 'chat',
    owner: { keyId: owner.keyId, employeeId: null, teamId: null, spaceId: owner.spaceId ?? null },
    model,
    category: model.includes('image') ? 'image' : 'text',
    amount: parseUsd(amount),
    price: { version: null, serviceTier: null }, deadline,
    limits: {},
    accessRevisions: {},
  });

  it('reports settled spend by key, model, space, day and type', async () => {
    const { orgId, keyId } = await admin.organizationWithKey({ credits: '10' });
    const space = await admin.ok('POST', `/organizations/${orgId}/spaces`, { name: 'research' });
    const run = (command: AccountCommand, id: string) => gateway.accounts.execute(orgId, command, id);
    await run(reserve('gen-r1', '1', { keyId }), 'gen-r1');
    await run({ type: 'SettleReservation', reservationId: 'gen-r1', cost: parseUsd('0.25'), usage: createUsage({ inputTokens: 10, outputTokens: 5 }) }, 'gen-r1');
    await run(reserve('gen-r2', '1', { keyId, spaceId: space.id }, 'openai/gpt-image-1'), 'gen-r2');
    await run({ type: 'SettleReservation', reservationId: 'gen-r2', cost: parseUsd('0.04'), usage: createUsage({ images: 1 }) }, 'gen-r2');
    await run(reserve('gen-r3', '1', { keyId }), 'gen-r3');
    await run({ type: 'ReleaseReservation', reservationId: 'gen-r3', reason: 'provider_error' }, 'gen-r3');

    let byModel: any;
    await eventually(async () => {
      byModel = await admin.ok('GET', `/organizations/${orgId}/spend?group_by=model`);
      expect(byModel.data.reduce((n: number, row: { requests: number }) => n + row.requests, 0)).to.equal(3);
    });
    expect(byModel.total_usd).to.equal('0.29');
    // the amounts here are settled directly, without a split by kind: the report's kinds are all zero
    const spendRows = async (query: string) => (await admin.ok('GET', `/organizations/${orgId}/spend?${query}`)).data.map(({ cost_by_kind: _kinds, ...row }: Record<string, unknown>) => row);
    byModel.data = byModel.data.map(({ cost_by_kind: _kinds, ...row }: Record<string, unknown>) => row);
    expect(byModel.data).to.deep.equal([
      { model: 'openai/gpt-4o-mini', cost_usd: '0.25', requests: 2 },
      { model: 'openai/gpt-image-1', cost_usd: '0.04', requests: 1 },
    ]);
    expect(await spendRows('group_by=key')).to.deep.equal([{ key: keyId, cost_usd: '0.29', requests: 3 }]);
    expect(await spendRows('group_by=space')).to.deep.equal([
      { space: null, cost_usd: '0.25', requests: 2 },
      { space: space.id, cost_usd: '0.04', requests: 1 },
    ]);
    expect((await admin.ok('GET', `/organizations/${orgId}/spend?group_by=type`)).data.map((row: { type: string }) => row.type)).to.deep.equal(['image', 'text']);
    const today = new Date().toISOString().slice(0, 10);
    expect(await spendRows('group_by=day')).to.deep.equal([{ day: today, cost_usd: '0.29', requests: 3 }]);
    expect((await admin.ok('GET', `/organizations/${orgId}/spend?from=2020-01-01&to=2020-01-31`)).data).to.deep.equal([]);

    const balances = await sql<{ balance: string; reserved: string }>`select balance::text, reserved::text from balances where org_id = ${orgId}`.execute(gateway.database.kysely);
    expect(balances.rows[0]).to.deep.equal({ balance: String(parseUsd('9.71')), reserved: '0' });
    const log = await sql<{ request_id: string; status: string }>`select request_id, status from requests where org_id = ${orgId} order by request_id`.execute(gateway.database.kysely);
    expect(log.rows).to.deep.equal([
      { request_id: 'gen-r1', status: 'settled' },
      { request_id: 'gen-r2', status: 'settled' },
      { request_id: 'gen-r3', status: 'released' },
    ]);
  });

  it('refuses a bad spend query with a 400 naming the field', async () => {
    const { orgId } = await admin.organizationWithKey();
    for (const [query, field] of [
      ['group_by=colour', 'group_by'],
      ['from=yesterday', 'from'],
      ['to=2026-13-40', 'to'],
    ]) {
      const { status, body } = await admin.call('GET', `/organizations/${orgId}/spend?${query}`);
      expect(status, query).to.equal(400);
      expect(body.error.message).to.contain(field);
    }
  });

  it('expires reservations past their deadline and returns their money', async () => {
    const { orgId, keyId } = await admin.organizationWithKey({ credits: '1' });
    await gateway.accounts.execute(orgId, reserve('gen-late', '0.8', { keyId }, 'openai/gpt-4o-mini', new Date(Date.now() - 1_000)), 'gen-late');
    await gateway.accounts.execute(orgId, reserve('gen-fresh', '0.1', { keyId }), 'gen-fresh');
    expect((await gateway.accounts.balance(orgId)).available).to.equal(parseUsd('0.1'));
    await eventually(async () => {
      const result = await sql<{ n: number }>`select count(*)::int as n from requests where org_id = ${orgId}`.execute(gateway.database.kysely);
      expect(result.rows[0]!.n).to.equal(2);
    });
    expect(await sweepExpiredReservations(overdueReservationsFrom(gateway.database.kysely), gateway.accounts, systemClock)).to.be.at.least(1);
    expect(await gateway.accounts.balance(orgId)).to.deep.equal({ balance: parseUsd('1'), reserved: parseUsd('0.1'), available: parseUsd('0.9') });
    // a second sweep finds nothing more to do for this account
    await eventually(async () => {
      const result = await sql<{ status: string }>`select status from requests where request_id = 'gen-late'`.execute(gateway.database.kysely);
      expect(result.rows[0]?.status).to.equal('expired');
    });
    expect((await admin.ok('GET', `/organizations/${orgId}`)).reserved_usd).to.equal('0.10');
  });
});
