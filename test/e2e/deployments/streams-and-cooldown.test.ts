import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import { accountEvents, expectBalanced, hello, metric, ONE_USD, openDeploymentWorld, type DeploymentWorld } from './deployments-kit.js';

/**
 * Streams are retried only before they start (nothing has reached the client), never after; a deployment
 * that keeps failing cools down and comes back when its cooldown ends. Through the official SDKs; amounts
 * worked out by hand from deployments-kit.ts; each organization starts with $1 = 1,000,000,000 n$.
 */
describe('deployments: streams and cooldowns', function () {
  this.timeout(60_000);
  let world: DeploymentWorld;
  before(async () => {
    world = await openDeploymentWorld();
  });
  after(() => world?.close());
  beforeEach(() => {
    for (const fake of [world.east, world.west, world.backup]) fake.reset();
  });

  it('retries a stream whose provider fails before its first byte (Anthropic SDK, messages translated to chat)', async () => {
    const { orgId, secret } = await world.customer();
    world.east.enqueue({ transport: 'reset_before_headers' });
    const anthropic = new Anthropic({ apiKey: secret, baseURL: world.gateway.url, maxRetries: 0 });
    const stream = anthropic.messages.stream({ model: 'east/retried', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] });
    const message = await stream.finalMessage();
    expect(message.content[0]).to.deep.include({ type: 'text' });
    expect(world.east.requests, 'the reset attempt and the retry').to.have.length(2);
    const [settled] = await accountEvents(world.gateway, orgId, 'ReservationSettled');
    // 12 × 150 + 7 × 600 = 1,800 + 4,200 = 6,000 n$
    expect(settled!.data).to.deep.include({ cost: '6000', attempts: 2, deployment: 'east/retried#0' });
    await expectBalanced(world.gateway, orgId, ONE_USD - 6_000n);
  });

  it('does not retry a stream that fails after its first byte, and settles it for what was sent', async () => {
    const { orgId, client } = await world.customer();
    // the role chunk and the delta "a " are sent, then the connection dies; no usage
    world.east.enqueue({ text: 'a b c d e f', deltas: 6, usage: null, failAfterEvents: 2 });
    const stream = await client.chat.completions.create({ ...hello('east/retried'), stream: true });
    let text = '';
    const ended = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().then(
      () => 'ended',
      () => 'failed',
    );
    expect(ended).to.equal('failed');
    expect(text).to.equal('a ');
    expect(world.east.requests, 'not retried: the client had its first byte').to.have.length(1);
    const [settled] = await accountEvents(world.gateway, orgId, 'ReservationSettled');
    // no usage arrived: the input is the estimate, 11 tokens; the output is counted from what was sent,
    // "a " = 2 o200k tokens ("a", " ") × 5/4 = 2.5, rounded up 3. 11 × 150 + 3 × 600 = 1,650 + 1,800 = 3,450 n$
    expect(settled!.data).to.deep.include({ cost: '3450', attempts: 1 });
    expect((settled!.data as { usage: object }).usage).to.deep.include({ inputTokens: 11, outputTokens: 3, counted: true });
    await expectBalanced(world.gateway, orgId, ONE_USD - 3_450n);
  });

  it('cools a deployment down after two failures in a row, sends its traffic to the other, and takes it back when the cooldown ends', async () => {
    const { orgId, client } = await world.customer();
    const cooling = (labels: string) => metric(world.gateway, 'gateway_deployment_cooling_down', labels);
    const east = 'deployment="east/cooling#east"';
    // east is drawn first (weight 1,000,000 to 1); it answers 503 twice, each time the retry goes to west
    world.east.enqueue({ error: { status: 503 } }, { error: { status: 503 } });
    await client.chat.completions.create(hello('east/cooling'));
    expect(await cooling(east)).to.equal(0);
    await client.chat.completions.create(hello('east/cooling'));
    expect(world.east.requests).to.have.length(2);
    expect(world.west.requests).to.have.length(2);
    expect(await cooling(east), 'in cooldown after 2 failures in a row').to.equal(1);
    expect(await metric(world.gateway, 'gateway_deployment_cooldowns_total', east)).to.equal(1);
    // the console's deployment health reads the same
    const health = async () => ((await world.admin.ok('GET', '/deployments')).data as Array<Record<string, unknown>>).filter((row) => row.model === 'east/cooling');
    const during = await health();
    expect(during.map(({ id, weight, answered, failed, cooldowns, cooling_down }) => ({ id, weight, answered, failed, cooldowns, cooling_down }))).to.deep.equal([
      { id: 'east/cooling#east', weight: 1_000_000, answered: 0, failed: 2, cooldowns: 1, cooling_down: true },
      { id: 'east/cooling#west', weight: 1, answered: 2, failed: 0, cooldowns: 0, cooling_down: false },
    ]);
    expect(Date.parse(during[0]!.cooling_until as string)).to.be.greaterThan(Date.now());

    // while it cools down, east is skipped: west answers at the first attempt
    await client.chat.completions.create(hello('east/cooling'));
    expect(world.east.requests).to.have.length(2);
    expect(world.west.requests).to.have.length(3);

    // the cooldown (1.5 s) ends: the next request tries east again, which answers, and the cooldown is over
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    await client.chat.completions.create(hello('east/cooling'));
    expect(world.east.requests).to.have.length(3);
    expect(world.west.requests).to.have.length(3);
    expect(await cooling(east)).to.equal(0);
    expect((await health())[0]).to.deep.include({ answered: 1, failed: 2, cooling_down: false, cooling_until: null });

    const settles = await accountEvents(world.gateway, orgId, 'ReservationSettled');
    expect(settles.map((event) => [(event.data as { deployment: string }).deployment, (event.data as { attempts: number }).attempts])).to.deep.equal([
      ['east/cooling#west', 2],
      ['east/cooling#west', 2],
      ['east/cooling#west', 1],
      ['east/cooling#east', 1],
    ]);
    // each at the model's price (neither deployment has rates of its own): 12 × 150 + 7 × 600 = 6,000 n$; 4 × 6,000 = 24,000 n$
    expect(settles.map((event) => (event.data as { cost: string }).cost)).to.deep.equal(['6000', '6000', '6000', '6000']);
    await expectBalanced(world.gateway, orgId, ONE_USD - 24_000n);
  });
});
