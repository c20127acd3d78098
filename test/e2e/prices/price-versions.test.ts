import { expect } from 'chai';
import { gate } from '../money-rules/money-rules-kit.js';
import { eventually } from '../../support/eventually.js';
import { accountEvents, adminOf, chatRequest, MODEL, openPriceWorld, type PriceWorld } from './prices-kit.js';

/**
 * Price versions through the running gateway: the catalog's prices recorded as version 1 at start, a reload
 * with other prices recorded as version 2 while 20 requests are open (each settles at the price it reserved
 * at, each new one at the new price), and a second instance reading the same catalog recording nothing.
 */
describe('price versions: a catalog reload while requests are open', function () {
  this.timeout(60_000);
  let world: PriceWorld;
  before(async () => {
    world = await openPriceWorld('price_reload');
  });
  after(() => world?.close());

  it('records the catalog as version 1, and shows the price in force in GET /v1/models', async () => {
    const gateway = await world.start();
    const { secret } = await adminOf(gateway).organizationWithKey({ credits: '1' });
    const listed = (await (await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } })).json()) as { data: any[] };
    const mini = listed.data.find((model) => model.id === MODEL);
    expect(mini).to.deep.include({ pricing_version: 1, pricing: { input_per_mtok: '0.15', output_per_mtok: '0.60', cached_input_per_mtok: '0.075', pii_masking_fee: '0.002' } });
    expect(Date.parse(mini.pricing_effective_at)).to.be.at.most(Date.now());
    const history = await adminOf(gateway).ok('GET', `/models/${encodeURIComponent(MODEL)}/prices`);
    expect(history.data.map((version: any) => [version.version, version.source, version.status])).to.deep.equal([[1, 'catalog', 'in_force']]);
  });

  it('settles the 20 requests open at a reload at their old price, and prices every new one at the new', async () => {
    const gateway = await world.start();
    const { orgId, secret } = await adminOf(gateway).organizationWithKey({ credits: '10' });
    world.openai.reset();
    const held = gate();
    for (let i = 0; i < 20; i++) world.openai.enqueue({ holdUntil: held.promise });
    const open = Array.from({ length: 20 }, () => chatRequest(gateway, secret));
    await eventually(async () => expect(world.openai.requests.length).to.equal(20));

    // the price doubles: $0.30 input and $1.20 output per million tokens (300 and 1,200 n$ a token)
    world.withRates('{ input_per_mtok: "0.30", output_per_mtok: "1.20", cached_input_per_mtok: "0.15" }');
    expect(await gateway.catalog.reload()).to.equal(true);
    const history = await adminOf(gateway).ok('GET', `/models/${encodeURIComponent(MODEL)}/prices`);
    expect(history.data.map((version: any) => [version.version, version.source, version.status])).to.deep.equal([
      [1, 'catalog', 'superseded'],
      [2, 'catalog', 'in_force'],
    ]);

    // a new request: reserved 11 × 300 + 100 × 1,200 = 3,300 + 120,000 = 123,300 n$;
    // charged 12 × 300 + 7 × 1,200 = 3,600 + 8,400 = 12,000 n$
    expect((await chatRequest(gateway, secret)).status).to.equal(200);
    held.open();
    for (const answer of await Promise.all(open)) expect(answer.status).to.equal(200);

    const reserves = await accountEvents(gateway, orgId, 'FundsReserved');
    expect(reserves).to.have.length(21);
    // a settle is appended after its answer is sent: wait for the 21
    const settles = await eventually(async () => {
      const settled = await accountEvents(gateway, orgId, 'ReservationSettled');
      expect(settled).to.have.length(21);
      return settled;
    });
    const byVersion = (events: typeof reserves, field: string) =>
      events.reduce<Record<string, string[]>>((groups, event) => {
        const data = event.data as Record<string, unknown>;
        (groups[String(data.priceVersion)] ??= []).push(String(data[field]));
        return groups;
      }, {});
    // the 20 held: reserved 11 × 150 + 100 × 600 = 1,650 + 60,000 = 61,650 n$ each at version 1, and
    // settled at version 1 for 12 × 150 + 7 × 600 = 1,800 + 4,200 = 6,000 n$ each
    expect(byVersion(reserves, 'amount')).to.deep.equal({ 1: Array(20).fill('61650'), 2: ['123300'] });
    expect(byVersion(settles, 'cost')).to.deep.equal({ 1: Array(20).fill('6000'), 2: ['12000'] });
    // $10 − 20 × 6,000 − 12,000 = 10,000,000,000 − 132,000 = 9,999,868,000 n$
    expect(await gateway.accounts.balance(orgId)).to.deep.equal({ balance: 9_999_868_000n, reserved: 0n, available: 9_999_868_000n });
  });

  it('records nothing when another instance starts on the same catalog: a version is recorded once', async () => {
    const other = await world.start();
    const history = await adminOf(other).ok('GET', `/models/${encodeURIComponent(MODEL)}/prices`);
    expect(history.data.map((version: any) => version.version)).to.deep.equal([1, 2]);
    const embeddings = await adminOf(other).ok('GET', `/models/${encodeURIComponent('openai/text-embedding-3-small')}/prices`);
    expect(embeddings.data.map((version: any) => version.version)).to.deep.equal([1]);
    expect((await other.store.readStream('prices-catalog')).length).to.equal(16); // the test catalog's 15 models, and version 2
  });

  it('keeps the old catalog and its prices when the new file is broken', async () => {
    const gateway = await world.start();
    world.withRates('{ input_per_mtok: "free" }');
    expect(await gateway.catalog.reload()).to.equal(false);
    const history = await adminOf(gateway).ok('GET', `/models/${encodeURIComponent(MODEL)}/prices`);
    expect(history.data.map((version: any) => version.version)).to.deep.equal([1, 2]);
  });
});
