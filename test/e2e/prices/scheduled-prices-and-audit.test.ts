import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { accountEventToAppend } from '../../../src/ledger/account-event-catalogue.js';
import { createUsage } from '../../../src/billing/usage.js';
import { ManualClock } from '../money-rules/money-rules-kit.js';
import { npmRunAudit } from '../../support/audit-cli.js';
import { eventually } from '../../support/eventually.js';
import { accountEvents, adminOf, chatRequest, MODEL, openPriceWorld, type PriceWorld } from './prices-kit.js';
import { NOT_ANSWERED } from '../../../src/ledger/account-events.js';

/**
 * A price set through the admin API for a time to come, applied by every instance at that moment; a log
 * that went through three price versions, replayed by the audit, which re-prices every charge at its
 * version, shows spend by version, and names a charge that disagrees with its price.
 */
describe('price versions: scheduled through the admin API, and audited by replay', function () {
  this.timeout(120_000);
  const clock = new ManualClock('2026-12-01T00:00:00.000Z');
  let world: PriceWorld;
  let orgId: string;
  let secret: string;
  before(async () => {
    world = await openPriceWorld('price_schedule');
  });
  after(() => world?.close());

  it('applies a price scheduled on one instance on another at its time, and refuses one in the past', async () => {
    const first = await world.start(clock);
    const second = await world.start(clock);
    const customer = await adminOf(first).organizationWithKey({ credits: '10' });
    ({ orgId, secret } = customer);
    const path = `/models/${encodeURIComponent(MODEL)}/prices`;
    // version 2 from 01:00: $1 input and $2 output per million tokens (1,000 and 2,000 n$ a token)
    const scheduled = await adminOf(first).call('POST', path, { pricing: { input_per_mtok: '1', output_per_mtok: '2' }, effective_at: '2026-12-01T01:00:00Z' });
    expect(scheduled.status).to.equal(201);
    expect(scheduled.body).to.deep.include({ version: 2, source: 'admin', status: 'scheduled', effective_at: '2026-12-01T01:00:00.000Z' });
    // a text model keeps its masking fee when the new rates leave it out
    expect(scheduled.body.pricing).to.deep.equal({ input_per_mtok: '1', output_per_mtok: '2', pii_masking_fee: '0.002' });
    await eventually(async () => expect((await adminOf(second).ok('GET', path)).data.map((version: any) => version.status)).to.deep.equal(['in_force', 'scheduled']));

    // 00:30, on the second instance: version 1, 12 × 150 + 7 × 600 = 6,000 n$
    clock.set('2026-12-01T00:30:00.000Z');
    expect((await chatRequest(second, customer.secret)).status).to.equal(200);
    // 01:00, on both: version 2, 12 × 1,000 + 7 × 2,000 = 12,000 + 14,000 = 26,000 n$ each
    clock.set('2026-12-01T01:00:00.000Z');
    expect((await chatRequest(second, customer.secret)).status).to.equal(200);
    expect((await chatRequest(first, customer.secret)).status).to.equal(200);
    const settles = await eventually(async () => {
      const found = await accountEvents(first, orgId, 'ReservationSettled');
      expect(found).to.have.length(3);
      return found;
    });
    expect(settles.map((event) => { const data = event.data as { priceVersion: number; cost: string }; return [data.priceVersion, data.cost]; })).to.deep.equal([
      [1, '6000'],
      [2, '26000'],
      [2, '26000'],
    ]);

    const past = await adminOf(first).call('POST', path, { pricing: { input_per_mtok: '1', output_per_mtok: '2' }, effective_at: '2026-11-30T00:00:00Z' });
    expect(past.status).to.equal(400);
    expect(past.body.error).to.include({ code: 'invalid_request' });
    const incomplete = await adminOf(first).call('POST', path, { pricing: { input_per_mtok: '1' } });
    expect(incomplete.body.error.message).to.match(/needs pricing\.input_per_mtok and output_per_mtok/);
    const unknown = await adminOf(first).call('GET', `/models/${encodeURIComponent('openai/none')}/prices`);
    expect([unknown.status, unknown.body.error.code]).to.deep.equal([404, 'model_not_found']);
    // a raw slash works as well as %2F
    expect((await adminOf(first).ok('GET', `/models/${MODEL}/prices`)).data).to.have.length(2);
  });

  it('records a third version from a catalog change, and the audit re-prices every charge of the three', async () => {
    const gateway = await world.start(clock);
    // version 3 at 02:00 from the catalog: $0.30 and $1.20 (300 and 1,200 n$ a token)
    clock.set('2026-12-01T02:00:00.000Z');
    world.withRates('{ input_per_mtok: "0.30", output_per_mtok: "1.20" }');
    expect(await gateway.catalog.reload()).to.equal(true);
    // 12 × 300 + 7 × 1,200 = 3,600 + 8,400 = 12,000 n$
    expect((await chatRequest(gateway, secret)).status).to.equal(200);

    const env = { DATABASE_URL: world.databaseUrl };
    const verify = await eventually(async () => {
      const result = await npmRunAudit(['verify', '--org', orgId], env);
      expect(result.code, result.stderr).to.equal(0);
      return result;
    }, 20_000);
    expect(verify.stdout).to.match(/re-priced 4 charges at their price versions/);

    // spend by price version: v1 6,000; v2 2 × 26,000 = 52,000; v3 12,000 n$
    const report = await npmRunAudit(['--org', orgId, '--from', '2026-12-01', '--to', '2026-12-01', '--group-by', 'price_version', '--format', 'csv'], env);
    expect(report.code, report.stderr).to.equal(0);
    expect(report.stdout).to.equal(
      'organization_id,price_version,requests,spend_usd\n' +
        `${orgId},openai/gpt-4o-mini@v1,1,0.000006\n` +
        `${orgId},openai/gpt-4o-mini@v2,2,0.000052\n` +
        `${orgId},openai/gpt-4o-mini@v3,1,0.000012\n`,
    );
    // by kind: input 12 × 150 + 2 × 12 × 1,000 + 12 × 300 = 1,800 + 24,000 + 3,600 = 29,400 n$;
    // output 7 × 600 + 2 × 7 × 2,000 + 7 × 1,200 = 4,200 + 28,000 + 8,400 = 40,600 n$
    const json = JSON.parse((await npmRunAudit(['--org', orgId, '--from', '2026-12-01', '--to', '2026-12-01', '--format', 'json'], env)).stdout);
    expect(json.data[0].spend_by_kind).to.include({ input_usd: '0.0000294', output_usd: '0.0000406', cached_input_usd: '0.00' });
  });

  it('names a settle whose charge disagrees with its price version', async () => {
    const gateway = await world.start(clock);
    // a reserve and a settle written around the decider: 12 input and 7 output tokens at version 1 cost
    // 6,000 n$, but the settle says 9,000
    const reservationId = `gen-planted${Date.now()}`;
    const { data: template } = (await accountEvents(gateway, orgId, 'FundsReserved'))[0]!;
    const envelope = () => ({ id: randomUUID(), occurredAt: clock.now().toISOString(), causedBy: reservationId });
    const stream = `account-${orgId}`;
    const revision = (await gateway.store.readStream(stream)).at(-1)!.revision;
    await gateway.store.append(
      stream,
      [
        accountEventToAppend({ type: 'FundsReserved', data: { ...(template as any), reservationId, amount: '61650', priceVersion: 1 } }, envelope()),
        accountEventToAppend(
          {
            type: 'ReservationSettled',
            data: { reservationId, cost: '9000', usage: createUsage({ inputTokens: 12, outputTokens: 7 }), overrun: '0', piiMaskingFee: '0', costByKind: {}, priceVersion: 1, serviceTier: null, ...NOT_ANSWERED },
          },
          envelope(),
        ),
      ],
      { expectedRevision: revision },
    );
    const verify = await eventually(async () => {
      const result = await npmRunAudit(['verify', '--org', orgId], { DATABASE_URL: world.databaseUrl });
      expect(result.code).to.equal(1);
      return result;
    }, 20_000);
    expect(verify.stderr).to.include(`mismatch: ${orgId}: ${reservationId} (openai/gpt-4o-mini at price version 1) was charged $0.000009, but its usage at that price costs $0.000006`);
  });
});
