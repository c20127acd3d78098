import { expect } from 'chai';
import { sql } from 'kysely';
import { SWEEP_INTERVAL_MS } from '../../../src/ledger/reservation-sweeper.js';
import { testRedisPrefix, testRedisUrl } from '../../support/databases.js';
import { startGatewayHarness, type GatewayHarness } from '../../support/gateway-harness.js';
import { eventually } from '../../support/eventually.js';
import { chat, gate, ManualClock, postChat, providerReceived, reservedOf } from './money-rules-kit.js';

/**
 * The gateway schedules the reservation sweeper by itself (every 30 s), with either scheduler: in-process
 * without Redis, BullMQ with it. No test code calls the sweeper here. Both gateways wait out one interval
 * side by side, so the suite pays it once. `chat(100)` reserves 61,650 n$ (money-rules-kit.ts).
 */
describe('money rules: the gateway runs the reservation sweeper by itself', function () {
  this.timeout(SWEEP_INTERVAL_MS * 2 + 30_000);
  const clocks = { 'in-process': new ManualClock('2026-06-03T10:00:00Z'), bullmq: new ManualClock('2026-06-03T10:00:00Z') };
  const harnesses: Partial<Record<keyof typeof clocks, GatewayHarness>> = {};
  before(async () => {
    harnesses['in-process'] = await startGatewayHarness({}, { clock: clocks['in-process'] });
    harnesses.bullmq = await startGatewayHarness({ REDIS_URL: testRedisUrl(), REDIS_PREFIX: testRedisPrefix('sweeper') }, { clock: clocks.bullmq });
  });
  after(async () => {
    for (const harness of Object.values(harnesses)) await harness.close();
  });

  async function expiresByItself(kind: keyof typeof clocks): Promise<void> {
    const harness = harnesses[kind]!;
    const { orgId, secret } = await harness.admin.organizationWithKey({ credits: '1' });
    const held = gate();
    harness.openai.enqueue({ holdUntil: held.promise });
    const answer = postChat(harness, secret, chat(100));
    await providerReceived(harness, 1);
    const statusInLog = async () =>
      (await sql<{ status: string }>`select status from requests where org_id = ${orgId}`.execute(harness.gateway.database.kysely)).rows.map((row) => row.status);
    await eventually(async () => expect(await statusInLog()).to.deep.equal(['open']));
    expect(await reservedOf(harness, orgId)).to.equal(61_650n);
    // past the deadline (reserve + 600 s provider timeout + 60 s); an instance that crashed would never settle
    clocks[kind].set('2026-06-03T10:20:00Z');
    await eventually(async () => expect(await statusInLog(), kind).to.deep.equal(['expired']), SWEEP_INTERVAL_MS * 2 + 5_000, 250);
    expect(await reservedOf(harness, orgId)).to.equal(0n);
    held.open();
    await answer;
    // 1 USD back in full: the expired reservation is closed, the late answer charges nothing
    expect(await harness.settledMoney(orgId)).to.deep.equal({ balance: 1_000_000_000n, reserved: 0n });
  }

  it('expires a reservation past its deadline within one interval, with either scheduler', async () => {
    await Promise.all([expiresByItself('in-process'), expiresByItself('bullmq')]);
  });
});
