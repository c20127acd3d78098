import { expect } from 'chai';
import { sql } from 'kysely';
import { sweepExpiredReservations } from '../../../src/ledger/reservation-sweeper.js';
import { overdueReservationsFrom } from '../../../projections/overdue-reservations.js';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import { eventually } from '../../support/eventually.js';
import { chat, gate, ManualClock, postChat, providerReceived, reservedOf } from './money-rules-kit.js';

/**
 * A reservation's deadline is the provider's timeout (600 s, the catalog default) plus a minute, from the
 * reserve: a long request still running is never expired (it settles and is paid for), and only a
 * reservation older than that, one a crashed instance left open, is expired by the sweeper
 * (gateway-sweeper-schedule.test.ts: the gateway runs it by itself). `chat(100)` reserves 61,650 n$ (money-rules-kit.ts).
 */
describe('money rules: the reservation deadline and the sweeper', function () {
  this.timeout(90_000);
  const clock = new ManualClock('2026-06-01T10:00:00Z');
  const current = useGatewayHarness({}, { clock });

  async function statusOf(requestId: string): Promise<string | undefined> {
    const { rows } = await sql<{ status: string }>`select status from requests where request_id = ${requestId}`.execute(current().gateway.database.kysely);
    return rows[0]?.status;
  }

  /** A chat(100) held at the provider; its request id once its reservation shows in the request log. */
  async function heldRequest(orgId: string, secret: string) {
    const held = gate();
    const before = current().openai.requests.length;
    current().openai.enqueue({ holdUntil: held.promise });
    const answer = postChat(current(), secret, chat(100));
    await providerReceived(current(), before + 1);
    let requestId = '';
    await eventually(async () => {
      const { rows } = await sql<{ request_id: string }>`select request_id from requests where status = 'open' and org_id = ${orgId}`.execute(current().gateway.database.kysely);
      expect(rows).to.have.length(1);
      requestId = rows[0]!.request_id;
    });
    return { answer, release: held.open, requestId };
  }

  const customer = () => current().admin.organizationWithKey({ credits: '1' });

  it('keeps a request open for the whole provider timeout: it settles and is charged, never expired', async () => {
    clock.set('2026-06-01T10:00:00Z');
    const { orgId, secret } = await customer();
    const request = await heldRequest(orgId, secret);
    // 600 s of provider timeout + 59 s later the reservation is still within its deadline (10:10:59 < 10:11:00)
    clock.set('2026-06-01T10:10:59Z');
    await sweepExpiredReservations(overdueReservationsFrom(current().gateway.database.kysely), current().gateway.accounts, clock);
    expect(await reservedOf(current(), orgId)).to.equal(61_650n);
    request.release();
    expect((await request.answer).status).to.equal(200);
    // charged the default 6,000 n$
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 1_000_000_000n - 6_000n, reserved: 0n });
    await eventually(async () => expect(await statusOf(request.requestId)).to.equal('settled'));
  });

  it('lets the sweeper expire a reservation past its deadline, returning its money', async () => {
    clock.set('2026-06-02T10:00:00Z');
    const { orgId, secret } = await customer();
    const request = await heldRequest(orgId, secret);
    // one second past the deadline (10:11:00)
    clock.set('2026-06-02T10:11:01Z');
    await sweepExpiredReservations(overdueReservationsFrom(current().gateway.database.kysely), current().gateway.accounts, clock);
    expect(await reservedOf(current(), orgId)).to.equal(0n);
    await eventually(async () => expect(await statusOf(request.requestId)).to.equal('expired'));
    request.release();
    await request.answer;
    // the expired reservation stays closed: the late answer is not charged (the loss is the gateway's)
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 1_000_000_000n, reserved: 0n });
  });
});
