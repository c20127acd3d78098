import { expect } from 'chai';
import { startOverviewHistory, type OverviewHistory } from '../support/overview-history.js';

/**
 * `GET /admin/v1/overview` on a known history (test/support/overview-history.ts): every figure literal,
 * computed here from the prices of the test catalog.
 */
describe('admin API: overview', function () {
  this.timeout(120_000);
  let history: OverviewHistory;
  let now: Date;
  let today: string;
  let yesterday: string;
  /** Yesterday is in this month unless today is the 1st; the 1st of last month is always in its same days. */
  let yesterdayThisMonth: boolean;
  const day = (time: number) => new Date(time).toISOString().slice(0, 10);
  before(async () => {
    history = await startOverviewHistory();
    now = history.clock.now();
    today = day(now.getTime());
    yesterday = day(now.getTime() - 86_400_000);
    yesterdayThisMonth = yesterday.slice(0, 7) === today.slice(0, 7);
  });
  after(async () => {
    await history?.close();
  });


  it('sums spend today, yesterday, this month and the same days of last month, over every organization', async () => {
    const { spend } = await history.harness.admin.ok('GET', '/overview');
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    const lastMonthDays = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0)).getUTCDate();
    expect(spend).to.deep.equal({
      // Alpha 2 × 0.00045, Gamma 0.00045; Beta's failed request counts, charged nothing
      today: { from: today, to: today, total_usd: '0.00135', requests: 4 },
      yesterday: { from: yesterday, to: yesterday, total_usd: '0.000006', requests: 1 },
      month: { from: `${today.slice(0, 7)}-01`, to: today, total_usd: yesterdayThisMonth ? '0.001356' : '0.00135', requests: yesterdayThisMonth ? 5 : 4 },
      // Alpha 0.00045 and Beta 0.0045 on the 1st
      previous_month: {
        from: day(lastMonth.getTime()),
        to: day(Date.UTC(lastMonth.getUTCFullYear(), lastMonth.getUTCMonth(), Math.min(now.getUTCDate(), lastMonthDays))),
        total_usd: '0.00495',
        requests: 2,
      },
    });
  });

  it('counts requests and errors per minute over the last hour, every minute present', async () => {
    const { traffic } = await history.harness.admin.ok('GET', '/overview');
    expect(traffic.data).to.have.length(60);
    expect(Date.parse(traffic.to) - Date.parse(traffic.from)).to.equal(3_600_000);
    expect(traffic.data[0].minute).to.equal(traffic.from);
    // the four requests of now (yesterday's and last month's are out of the hour); Beta's failed
    expect({ requests: traffic.requests, errors: traffic.errors }).to.deep.equal({ requests: 4, errors: 1 });
    const sum = (field: 'requests' | 'errors') => traffic.data.reduce((total: number, minute: any) => total + minute[field], 0);
    expect({ requests: sum('requests'), errors: sum('errors') }).to.deep.equal({ requests: 4, errors: 1 });
  });

  it('names the organizations, keys and models that spent most in the period', async () => {
    const { alpha, beta, gamma } = history;
    const month = (await history.harness.admin.ok('GET', '/overview')).top;
    const alphaMonth = yesterdayThisMonth ? { cost_usd: '0.000906', requests: 3 } : { cost_usd: '0.0009', requests: 2 };
    expect(month).to.deep.include({ period: 'month', from: `${today.slice(0, 7)}-01`, to: today });
    expect(month.organizations).to.deep.equal([
      { organization_id: alpha.orgId, name: 'Alpha', ...alphaMonth },
      { organization_id: gamma.orgId, name: 'Gamma', cost_usd: '0.00045', requests: 1 },
      { organization_id: beta.orgId, name: 'Beta', cost_usd: '0.00', requests: 1 },
    ]);
    expect(month.keys.map((key: { key_id: string; name: string }) => [key.key_id, key.name])).to.deep.equal([
      [alpha.keyId, 'Alpha key'],
      [gamma.keyId, 'Gamma key'],
      [beta.keyId, 'Beta key'],
    ]);
    expect(month.keys[0]).to.deep.include({ organization_id: alpha.orgId, ...alphaMonth });
    // claude-sonnet-4-5 was used last month only
    expect(month.models).to.deep.equal([{ model: 'openai/gpt-4o-mini', cost_usd: yesterdayThisMonth ? '0.001356' : '0.00135', requests: yesterdayThisMonth ? 5 : 4 }]);
    const todays = (await history.harness.admin.ok('GET', '/overview?period=today&top=1')).top;
    expect(todays).to.deep.include({ period: 'today', from: today, to: today });
    expect(todays.organizations).to.deep.equal([{ organization_id: alpha.orgId, name: 'Alpha', cost_usd: '0.0009', requests: 2 }]);
    expect(todays.keys).to.have.length(1);
  });

  it('names the organizations with under a tenth left of their balance or of a limit', async () => {
    const { attention } = await history.harness.admin.ok('GET', '/overview');
    expect(attention).to.deep.equal([
      // 0.00048 − 0.00045 spent today
      { organization_id: history.gamma.orgId, name: 'Gamma', status: 'active', reason: 'daily_limit', left_usd: '0.00003', of_usd: '0.00048', left_percent: 6.2 },
      // 0.0049 credited − 0.0045 spent
      { organization_id: history.beta.orgId, name: 'Beta', status: 'active', reason: 'balance', left_usd: '0.0004', of_usd: '0.0049', left_percent: 8.1 },
    ]);
  });

  it('shows the open reservations, and refuses a bad query', async () => {
    expect((await history.harness.admin.ok('GET', '/overview')).open_reservations).to.deep.equal({ count: 0, amount_usd: '0.00', oldest_reserved_at: null, overdue: 0 });
    const held = await history.holdOpen();
    try {
      const open = (await history.harness.admin.ok('GET', '/overview')).open_reservations;
      expect(open).to.deep.include({ count: 1, amount_usd: '0.00006165', overdue: 0 });
      expect(Date.parse(open.oldest_reserved_at)).to.be.closeTo(history.clock.now().getTime(), 10_000);
    } finally {
      await held.release();
    }
    for (const query of ['period=week', 'top=0', 'top=51', 'org=1']) {
      const { status, body } = await history.harness.admin.call('GET', `/overview?${query}`);
      expect(status, query).to.equal(400);
      expect(body.error.code, query).to.equal('invalid_request');
    }
  });
});
