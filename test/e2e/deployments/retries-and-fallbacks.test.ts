import { expect } from 'chai';
import OpenAI from 'openai';
import { accountEvents, expectBalanced, hello, metric, ONE_USD, openDeploymentWorld, type DeploymentWorld } from './deployments-kit.js';

/**
 * Deployments, retries and fallbacks through the official openai SDK (its own retries off), billed for the
 * one that answered. Every amount is worked out by hand from the catalog in deployments-kit.ts; each
 * organization starts with $1 = 1,000,000,000 n$.
 */
describe('deployments: retries and fallbacks, billed for the one that answered', function () {
  this.timeout(60_000);
  let world: DeploymentWorld;
  before(async () => {
    world = await openDeploymentWorld();
  });
  after(() => world?.close());
  beforeEach(() => {
    for (const fake of [world.east, world.west, world.backup]) fake.reset();
  });

  const settleOf = async (orgId: string) => {
    const settles = await accountEvents(world.gateway, orgId, 'ReservationSettled');
    expect(settles).to.have.length(1);
    return settles[0]!.data as Record<string, unknown>;
  };

  it('retries a 429 after its Retry-After and charges once, at the price of the deployment that answered', async () => {
    const { orgId, client } = await world.customer();
    world.east.enqueue({ error: { status: 429, retryAfter: 1 } });
    const started = Date.now();
    const completion = await client.chat.completions.create(hello('east/retried'));
    expect(completion.choices[0]!.message.content).to.be.a('string');
    expect(Date.now() - started, "Retry-After: 1 waited for (east is the model's only deployment)").to.be.at.least(1_000);
    expect(world.east.requests).to.have.length(2);
    // 12 × 150 + 7 × 600 = 1,800 + 4,200 = 6,000 n$, charged once
    expect(await settleOf(orgId)).to.deep.include({ cost: '6000', answeringModel: 'east/retried', deployment: 'east/retried#0', attempts: 2, pricedAs: 'east/retried' });
    expect(await metric(world.gateway, 'gateway_deployment_retries_total', 'deployment="east/retried#0"')).to.equal(1);
    await expectBalanced(world.gateway, orgId, ONE_USD - 6_000n);
  });

  it('does not wait for a Retry-After that ends past the retry budget: the 429 as it is, at once, and nothing charged', async () => {
    const { orgId, client } = await world.customer();
    // east/brief retries within 500 ms; waiting the 2 s east asks for would start the attempt after that
    world.east.enqueue({ error: { status: 429, retryAfter: 2 } });
    const started = Date.now();
    const error = await client.chat.completions.create(hello('east/brief')).catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(OpenAI.RateLimitError);
    expect(Date.now() - started, 'answered without waiting out the Retry-After').to.be.below(2_000);
    expect(world.east.requests).to.have.length(1);
    await expectBalanced(world.gateway, orgId, ONE_USD);
  });

  it('does not retry a 4xx: the provider\'s own error, as it is, and nothing charged', async () => {
    const { orgId, client } = await world.customer();
    world.east.enqueue({ error: { status: 400, body: { error: { message: 'bad stop sequence', type: 'invalid_request_error', code: null } } } });
    const error = await client.chat.completions.create(hello('east/retried')).catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).to.include('bad stop sequence');
    expect(world.east.requests).to.have.length(1);
    await expectBalanced(world.gateway, orgId, ONE_USD);
    expect(await accountEvents(world.gateway, orgId, 'ReservationReleased')).to.have.length(1);
  });

  it('answers with the last provider error as it is when every attempt fails, never a 500, and releases the reservation', async () => {
    const { orgId, client } = await world.customer();
    world.east.enqueue(
      { error: { status: 503, body: { error: { message: 'first outage', type: 'server_error', code: null } } } },
      { error: { status: 502, body: { error: { message: 'second outage', type: 'server_error', code: null } } } },
      { error: { status: 500, body: { error: { message: 'third outage', type: 'server_error', code: null } } } },
    );
    const error = await client.chat.completions.create(hello('east/retried')).catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).to.equal(500);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).to.include('third outage');
    expect(world.east.requests, 'max_attempts: 3').to.have.length(3);
    await expectBalanced(world.gateway, orgId, ONE_USD);
    const [released] = await accountEvents(world.gateway, orgId, 'ReservationReleased');
    expect(released!.data).to.deep.include({ reason: 'provider_error' });
    await expectBalanced(world.gateway, orgId, ONE_USD);
  });

  it('moves traffic off a deployment that is down to the other, by weight, and cools the one down', async () => {
    const { orgId, client } = await world.customer();
    for (let i = 0; i < 6; i++) await client.chat.completions.create(hello('east/split'));
    // every answer came from west, at west's own $0.30 / $1.20: 12 × 300 + 7 × 1,200 = 3,600 + 8,400 = 12,000 n$ each
    expect(world.west.requests).to.have.length(6);
    const settles = await accountEvents(world.gateway, orgId, 'ReservationSettled');
    expect(settles.map((event) => (event.data as { cost: string }).cost)).to.deep.equal(Array(6).fill('12000'));
    expect(new Set(settles.map((event) => (event.data as { deployment: string }).deployment))).to.deep.equal(new Set(['east/split#west']));
    expect(new Set(settles.map((event) => (event.data as { pricedAs: string }).pricedAs))).to.deep.equal(new Set(['east/split#west']));
    // the reserve: the dearer deployment, west: 11 × 300 + 100 × 1,200 = 3,300 + 120,000 = 123,300 n$
    const reserves = await accountEvents(world.gateway, orgId, 'FundsReserved');
    expect(new Set(reserves.map((event) => (event.data as { amount: string }).amount))).to.deep.equal(new Set(['123300']));
    // "down" fails at most twice in a row before it cools down (cooldown_after_failures: 2, for a minute)
    const failed = await metric(world.gateway, 'gateway_deployment_attempts_total', 'deployment="east/split#down",outcome="failed"');
    expect(failed).to.be.at.most(2);
    if (failed === 2) expect(await metric(world.gateway, 'gateway_deployment_cooling_down', 'deployment="east/split#down"')).to.equal(1);
    // 6 × 12,000 = 72,000 n$
    await expectBalanced(world.gateway, orgId, ONE_USD - 72_000n);
  });

  it('falls back to another model when the model is down: the reserve covers the dearer, the charge is the cheaper one\'s', async () => {
    const { orgId, client } = await world.customer();
    const completion = await client.chat.completions.create(hello('down/dear'));
    expect(completion.model, 'the model that answered').to.equal('backup/mini');
    expect(world.backup.requests).to.have.length(1);
    const [reserved] = await accountEvents(world.gateway, orgId, 'FundsReserved');
    // reserve: the dearer candidate, down/dear: 11 × 3,000 + 100 × 15,000 = 33,000 + 1,500,000 = 1,533,000 n$
    // (backup/mini would reserve 11 × 100 + 100 × 200 = 1,100 + 20,000 = 21,100 n$)
    expect(reserved!.data).to.deep.include({ model: 'down/dear', amount: '1533000' });
    // charge: backup/mini's price, 12 × 100 + 7 × 200 = 1,200 + 1,400 = 2,600 n$, after 2 attempts on down/dear and 1 on backup/mini
    expect(await settleOf(orgId)).to.deep.include({ cost: '2600', overrun: '0', answeringModel: 'backup/mini', deployment: 'backup/mini#0', attempts: 3, pricedAs: 'backup/mini', priceVersion: 1 });
    expect(await metric(world.gateway, 'gateway_deployment_fallbacks_total', 'deployment="backup/mini#0"')).to.be.at.least(1);
    await expectBalanced(world.gateway, orgId, ONE_USD - 2_600n);
  });

  it("takes a request's own fallbacks out of the body, reserves for the dearest and charges the one that answered", async () => {
    const { orgId, client } = await world.customer();
    world.east.enqueue({ error: { status: 503 } }, { error: { status: 503 } }, { error: { status: 503 } });
    const body = { ...hello('east/retried'), fallbacks: ['backup/large'] };
    const completion = await client.chat.completions.create(body as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(completion.model).to.equal('backup/large');
    expect(world.backup.lastRequest!.body, 'the gateway field never reaches a provider').to.not.have.property('fallbacks');
    expect(world.east.lastRequest!.body).to.not.have.property('fallbacks');
    const [reserved] = await accountEvents(world.gateway, orgId, 'FundsReserved');
    // reserve: backup/large is dearer: 11 × 1,000 + 100 × 4,000 = 11,000 + 400,000 = 411,000 n$ (east/retried: 61,650 n$)
    expect(reserved!.data).to.deep.include({ amount: '411000' });
    // charge: 12 × 1,000 + 7 × 4,000 = 12,000 + 28,000 = 40,000 n$
    expect(await settleOf(orgId)).to.deep.include({ cost: '40000', answeringModel: 'backup/large', attempts: 4, pricedAs: 'backup/large' });
    await expectBalanced(world.gateway, orgId, ONE_USD - 40_000n);
  });

  it("refuses a request's fallback the key may not use (403) or that is not in the catalog (404), charging nothing", async () => {
    const { orgId, client } = await world.customer(['east/retried']);
    const refused = await client.chat.completions.create({ ...hello('east/retried'), fallbacks: ['backup/large'] } as OpenAI.ChatCompletionCreateParamsNonStreaming).catch((caught: unknown) => caught);
    expect(refused).to.be.instanceOf(OpenAI.PermissionDeniedError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).code).to.equal('model_not_allowed');
    const unknown = await client.chat.completions.create({ ...hello('east/retried'), fallbacks: ['backup/nothing'] } as OpenAI.ChatCompletionCreateParamsNonStreaming).catch((caught: unknown) => caught);
    expect(unknown).to.be.instanceOf(OpenAI.NotFoundError);
    expect(world.east.requests).to.have.length(0);
    expect(await accountEvents(world.gateway, orgId, 'FundsReserved')).to.have.length(0);
    await expectBalanced(world.gateway, orgId, ONE_USD);
  });
});
