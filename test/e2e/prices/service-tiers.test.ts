import { expect } from 'chai';
import { eventually } from '../../support/eventually.js';
import { accountEvents, adminOf, chatRequest, MODEL, openPriceWorld, type PriceWorld } from './prices-kit.js';

/**
 * Service tiers: a chat or responses request's `service_tier` is priced at the tier's rates the catalog
 * lists, refused (400, nothing charged) when it lists none, and priced at the standard rates when the tier
 * never reaches the provider (a translation to messages). openai/gpt-4o-mini here: standard $0.15 / $0.60,
 * priority $0.30 / $1.20, flex $0.075 / $0.30 per million tokens; the fake's usage is 12 in, 7 out.
 */
describe('service tiers priced at their own rates', function () {
  this.timeout(60_000);
  let world: PriceWorld;
  let gateway: Awaited<ReturnType<PriceWorld['start']>>;
  before(async () => {
    world = await openPriceWorld('price_tiers');
    world.withRates(
      '{ input_per_mtok: "0.15", output_per_mtok: "0.60", service_tiers: { priority: { input_per_mtok: "0.30", output_per_mtok: "1.20" }, flex: { input_per_mtok: "0.075", output_per_mtok: "0.30" } } }',
    );
    gateway = await world.start();
  });
  after(() => world?.close());

  /**
   * The settled cost and the tier of each of the organization's requests, in order, once each is settled
   * (a settle is appended after the answer is sent).
   */
  async function charges(orgId: string) {
    const { reserves, settles } = await eventually(async () => {
      const read = { reserves: await accountEvents(gateway, orgId, 'FundsReserved'), settles: await accountEvents(gateway, orgId, 'ReservationSettled') };
      expect(read.settles).to.have.length(read.reserves.length);
      return read;
    });
    return settles.map((settle, index) => {
      const reserve = reserves[index]!.data as { amount: string; serviceTier: string | null };
      const data = settle.data as { cost: string; serviceTier: string | null };
      return { reserved: reserve.amount, cost: data.cost, tier: data.serviceTier };
    });
  }

  it('prices priority and flex at their rates, auto and default at the standard ones', async () => {
    const { orgId, secret } = await adminOf(gateway).organizationWithKey({ credits: '1' });
    for (const tier of ['priority', 'flex', 'auto', 'default']) expect((await chatRequest(gateway, secret, { service_tier: tier })).status, tier).to.equal(200);
    expect(world.openai.requests.at(-4)!.body).to.deep.include({ service_tier: 'priority' });
    expect(await charges(orgId)).to.deep.equal([
      // priority: reserved 11 × 300 + 100 × 1,200 = 123,300; charged 12 × 300 + 7 × 1,200 = 3,600 + 8,400 = 12,000 n$
      { reserved: '123300', cost: '12000', tier: 'priority' },
      // flex: reserved 11 × 75 + 100 × 300 = 825 + 30,000 = 30,825; charged 12 × 75 + 7 × 300 = 900 + 2,100 = 3,000 n$
      { reserved: '30825', cost: '3000', tier: 'flex' },
      // standard: reserved 11 × 150 + 100 × 600 = 61,650; charged 12 × 150 + 7 × 600 = 6,000 n$
      { reserved: '61650', cost: '6000', tier: null },
      { reserved: '61650', cost: '6000', tier: null },
    ]);
  });

  it('prices a responses request at its tier too', async () => {
    const { orgId, secret } = await adminOf(gateway).organizationWithKey({ credits: '1' });
    const answer = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, input: 'hello', max_output_tokens: 100, service_tier: 'priority' }),
    });
    expect(answer.status).to.equal(200);
    // 12 × 300 + 7 × 1,200 = 12,000 n$
    expect((await charges(orgId)).map((charge) => [charge.cost, charge.tier])).to.deep.equal([['12000', 'priority']]);
  });

  it('refuses a tier the catalog has no price for, charging nothing; also when a translation carries it', async () => {
    const { orgId, secret } = await adminOf(gateway).organizationWithKey({ credits: '1' });
    const refused = await chatRequest(gateway, secret, { service_tier: 'scale' });
    expect(refused.status).to.equal(400);
    const body = (await refused.json()) as { error: { type: string; code: string; message: string } };
    expect(body.error).to.include({ type: 'invalid_request_error', code: 'unsupported_service_tier' });
    expect(body.error.message).to.equal('service_tier scale has no price in the catalog; this model is priced for flex, priority (or auto, default)');
    expect(refused.headers.get('x-request-id')).to.match(/^gen-/);
    // oairesp/gpt-4o-mini speaks only responses: chat is translated, service_tier with it, and it lists no tier
    const translated = await chatRequest(gateway, secret, { model: 'oairesp/gpt-4o-mini', service_tier: 'priority' });
    expect(translated.status).to.equal(400);
    expect(((await translated.json()) as { error: { code: string } }).error.code).to.equal('unsupported_service_tier');
    expect(await accountEvents(gateway, orgId, 'FundsReserved')).to.have.length(0);
    expect(await gateway.accounts.balance(orgId)).to.deep.equal({ balance: 1_000_000_000n, reserved: 0n, available: 1_000_000_000n });
  });

  it('prices the standard rates when the tier never reaches the provider (a translation to messages)', async () => {
    const { orgId, secret } = await adminOf(gateway).organizationWithKey({ credits: '1' });
    const answer = await chatRequest(gateway, secret, { model: 'anthropic/claude-sonnet-4-5', service_tier: 'priority' });
    expect(answer.status).to.equal(200);
    expect(world.anthropic.lastRequest!.body).to.not.have.property('service_tier');
    // claude-sonnet-4-5: 12 × 3,000 + 7 × 15,000 = 36,000 + 105,000 = 141,000 n$, no tier
    expect((await charges(orgId)).map((charge) => [charge.cost, charge.tier])).to.deep.equal([['141000', null]]);
  });
});
