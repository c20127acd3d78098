import { expect } from 'chai';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import { chat, gate, ManualClock, postChat, providerReceived, reservedOf } from './money-rules-kit.js';

/**
 * Limits count per UTC day and per UTC month: yesterday's spend no longer limits today, but still limits
 * the month, and an open reservation counts in both. A snapshot of the account carries the day and month
 * counters, so an instance that loads the account from it refuses exactly as one that replayed the log.
 * Amounts in n$ (money-rules-kit.ts: `chat(cap)` reserves 1,650 + 600 × cap; the default answer costs 6,000).
 */
describe('money rules: daily and monthly limits, and snapshots of the counters', function () {
  this.timeout(60_000);
  const clock = new ManualClock('2026-03-10T23:50:00Z');
  const current = useGatewayHarness({}, { clock });

  it("does not count yesterday's spend against today's daily limit, but counts it against the month", async () => {
    clock.set('2026-03-10T23:50:00Z');
    current().openai.reset();
    // organization limits: daily $0.00005 = 50,000 n$, monthly $0.000077 = 77,000 n$
    const { admin } = current();
    const { orgId, secret } = await admin.organizationWithKey({ credits: '1', organization: { spend_limits: { daily_usd: '0.00005', monthly_usd: '0.000077' } } });

    // Yesterday (10 March): chat(60) reserves 1,650 + 36,000 = 37,650 ≤ 50,000; it is charged
    // 30 × 150 + 55 × 600 = 4,500 + 33,000 = 37,500 n$.
    current().openai.enqueue({ usage: { inputTokens: 30, outputTokens: 55 } });
    expect((await postChat(current(), secret, chat(60))).status).to.equal(200);

    clock.set('2026-03-11T00:10:00Z');
    // Today: chat(50) reserves 1,650 + 30,000 = 31,650 and stays open at the provider.
    const held = gate();
    current().openai.enqueue({ holdUntil: held.promise });
    const open = postChat(current(), secret, chat(50));
    await providerReceived(current(), 2);
    expect(await reservedOf(current(), orgId)).to.equal(31_650n);

    // chat(10) reserves 1,650 + 6,000 = 7,650. Day: 31,650 + 7,650 = 39,300 ≤ 50,000 (with yesterday's
    // 37,500 it would be 76,800: refused). Month: 37,500 + 39,300 = 76,800 ≤ 77,000. Served; charged 6,000.
    const served = await postChat(current(), secret, chat(10));
    expect(served.status, JSON.stringify(served.body)).to.equal(200);

    // chat(20) reserves 1,650 + 12,000 = 13,650. Day: 6,000 settled + 31,650 open + 13,650 = 51,300 > 50,000.
    const overDay = await postChat(current(), secret, chat(20));
    expect(overDay.status).to.equal(402);
    expect(overDay.body.error.code).to.equal('spend_limit_exceeded');
    expect(overDay.body.error.message).to.contain('of the organization for the day').and.contain('reserves 0.00001365 USD');

    // chat(1) reserves 1,650 + 600 = 2,250. Day: 6,000 + 31,650 + 2,250 = 39,900 ≤ 50,000. Month:
    // 37,500 (yesterday) + 6,000 + 31,650 + 2,250 = 77,400 > 77,000: refused for the month (without
    // yesterday's spend it would be 39,900, without the open reservation 45,750: served either way).
    const overMonth = await postChat(current(), secret, chat(1));
    expect(overMonth.status).to.equal(402);
    expect(overMonth.body.error.message).to.contain('of the organization for the month').and.contain('reserves 0.00000225 USD');

    held.open();
    expect((await open).status).to.equal(200);
    // 1 USD − (37,500 + 6,000 + 6,000) = 1,000,000,000 − 49,500 = 999,950,500 n$
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 999_950_500n, reserved: 0n });
  });

  it('counts a request that straddles midnight on the day it began, and in the month with its real cost', async () => {
    clock.set('2026-07-10T23:59:00Z');
    current().openai.reset();
    // organization limits: daily $0.0001 = 100,000 n$, monthly $0.00016 = 160,000 n$
    const { orgId, secret } = await current().admin.organizationWithKey({ credits: '1', organization: { spend_limits: { daily_usd: '0.0001', monthly_usd: '0.00016' } } });
    // 10 July, 23:59: chat(100) reserves 61,650 and is held; it will cost 100 × 150 + 100 × 600 = 75,000 n$.
    const held = gate();
    current().openai.enqueue({ holdUntil: held.promise, usage: { inputTokens: 100, outputTokens: 100 } });
    const straddling = postChat(current(), secret, chat(100));
    await providerReceived(current(), 1);

    clock.set('2026-07-11T00:01:00Z');
    // chat(10) reserves 7,650: day 7,650 (a new day), month 61,650 + 7,650 = 69,300. Served; charged 6,000.
    expect((await postChat(current(), secret, chat(10))).status).to.equal(200);
    held.open();
    expect((await straddling).status).to.equal(200);

    // chat(150) reserves 1,650 + 90,000 = 91,650. Day (11 July): 6,000 + 91,650 = 97,650 ≤ 100,000. Month:
    // 75,000 + 6,000 + 91,650 = 172,650 > 160,000: refused for the month (had the month kept the straddling
    // request's reserve of 61,650 instead of its cost, 159,300 would have been served).
    const overMonth = await postChat(current(), secret, chat(150));
    expect(overMonth.status, JSON.stringify(overMonth.body)).to.equal(402);
    expect(overMonth.body.error.message).to.contain('of the organization for the month');
    // chat(100) reserves 61,650. Day: 6,000 + 61,650 = 67,650 (the 75,000 belongs to 10 July); month:
    // 75,000 + 6,000 + 61,650 = 142,650 ≤ 160,000. Served; charged 6,000.
    expect((await postChat(current(), secret, chat(100))).status).to.equal(200);
    // 1 USD − 75,000 − 6,000 − 6,000 = 999,913,000 n$
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 999_913_000n, reserved: 0n });
  });

  it('starts a new month with nothing counted against the monthly limit', async () => {
    clock.set('2026-03-31T23:55:00Z');
    const { orgId, secret } = await current().admin.organizationWithKey({ credits: '1', organization: { spend_limits: { monthly_usd: '0.0001' } } });
    // 31 March: charged 100 × 150 + 100 × 600 = 15,000 + 60,000 = 75,000 of the monthly 100,000 n$.
    current().openai.enqueue({ usage: { inputTokens: 100, outputTokens: 100 } });
    expect((await postChat(current(), secret, chat(100))).status).to.equal(200);
    // chat(50) reserves 31,650: 75,000 + 31,650 = 106,650 > 100,000 in March …
    expect((await postChat(current(), secret, chat(50))).status).to.equal(402);
    // … and 31,650 ≤ 100,000 in April.
    clock.set('2026-04-01T00:05:00Z');
    expect((await postChat(current(), secret, chat(50))).status).to.equal(200);
    // 1 USD − 75,000 − 6,000 = 999,919,000 n$
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 999_919_000n, reserved: 0n });
  });

  it('restores the day and month counters from a snapshot, not only the balance', async () => {
    clock.set('2026-05-05T12:00:00Z');
    const { gateway, admin } = current();
    const { orgId, keyId, secret } = await admin.organizationWithKey({ credits: '1', key: { limits: { daily_usd: '0.0001', monthly_usd: '0.0002' } } });
    // charged 100 × 150 + 100 × 600 = 75,000 n$ of the key's daily 100,000 and monthly 200,000
    current().openai.enqueue({ usage: { inputTokens: 100, outputTokens: 100 } });
    expect((await postChat(current(), secret, chat(100))).status).to.equal(200);
    await current().settledMoney(orgId);
    // The account is now loaded from the snapshot alone: no event follows it in the stream.
    await gateway.accounts.saveSnapshot(orgId);
    gateway.accounts.evictAll();

    // chat(50) reserves 31,650: 75,000 + 31,650 = 106,650 > 100,000 for the day.
    const overDay = await postChat(current(), secret, chat(50));
    expect(overDay.status, JSON.stringify(overDay.body)).to.equal(402);
    expect(overDay.body.error).to.include({ code: 'key_limit_exceeded' });
    expect(overDay.body.error.message).to.contain('for the day');

    // The next day the daily counter starts again; the month keeps 75,000. chat(100) reserves 61,650:
    // month 75,000 + 61,650 = 136,650 ≤ 200,000, served and charged 6,000. Then a new snapshot, a reload,
    // and the key's daily limit lifted, so that only the month can refuse.
    clock.set('2026-05-06T09:00:00Z');
    expect((await postChat(current(), secret, chat(100))).status).to.equal(200);
    await current().settledMoney(orgId);
    await gateway.accounts.saveSnapshot(orgId);
    gateway.accounts.evictAll();
    await admin.ok('PATCH', `/keys/${keyId}`, { limits: { daily_usd: null, monthly_usd: '0.0002' } });
    // chat(200) reserves 121,650: month 75,000 + 6,000 + 121,650 = 202,650 > 200,000: refused for the month
    // (a snapshot without the month counter would see 121,650 and serve it).
    const overMonth = await postChat(current(), secret, chat(200));
    expect(overMonth.status, JSON.stringify(overMonth.body)).to.equal(402);
    expect(overMonth.body.error.message).to.contain('for the month');
    // 1 USD − 75,000 − 6,000 = 999,919,000 n$
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 999_919_000n, reserved: 0n });
  });
});
