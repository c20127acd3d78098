import { expect } from 'chai';
import { verifyWebhook } from '../../src/alerts/standard-webhooks.js';
import { createScratchDatabase, testRedisPrefix, testRedisUrl } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../support/webhook-receiver.js';
import { chat, postChat } from './money-rules/money-rules-kit.js';

/**
 * Budget alerts through the request, on a gateway with its own database (the rebuild replays only this
 * log) and BullMQ on Redis running the deliveries, to a real HTTP receiver.
 *
 * Amounts (test catalog, openai/gpt-4o-mini; money-rules-kit.ts): `chat(10)` reserves 11 × 150 + 10 × 600 =
 * 7,650 n$, and the fake provider's usage (12 input, 7 output tokens) costs 12 × 150 + 7 × 600 = 6,000 n$ a
 * request. The key's daily limit is $0.00003 = 30,000 n$, watched at 50 % (15,000) and 80 % (24,000); the
 * organization has $0.00005 = 50,000 n$ and a low-balance level of $0.00003 = 30,000 n$. So the key has
 * spent 6,000, 12,000, 18,000, 24,000 after requests 1 to 4: request 3 crosses 50 %, request 4 crosses 80 %
 * and leaves the balance at 50,000 − 24,000 = 26,000, below the level.
 */
describe('budget alerts: signed webhooks decided from the log (real Postgres, Redis and HTTP)', function () {
  this.timeout(120_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let harness: GatewayHarness;
  let receiver: WebhookReceiver;
  let customer: { orgId: string; keyId: string; secret: string };
  let secret: string;

  before(async () => {
    scratch = await createScratchDatabase('budget_alerts');
    harness = await startGatewayHarness({ DATABASE_URL: scratch.url, REDIS_URL: testRedisUrl(), REDIS_PREFIX: testRedisPrefix('alerts') });
    receiver = await startWebhookReceiver();
    customer = await harness.customer('0.00005', { limits: { daily_usd: '0.00003' } });
    const webhook = await harness.admin.ok('PUT', `/organizations/${customer.orgId}/webhook`, { url: receiver.url });
    secret = webhook.secret;
    await harness.admin.ok('PATCH', `/organizations/${customer.orgId}/spend-controls`, {
      budget_alerts: { limit_percentages: [{ scope: 'key', percents: [80, 50] }], low_balance_usd: '0.00003' },
    });
  });

  after(async () => {
    try {
      await harness?.checkLedger();
    } finally {
      await harness?.close();
      await receiver?.close();
      await scratch?.drop();
    }
  });

  const request = async () => expect((await postChat(harness, customer.secret, chat(10))).status).to.equal(200);
  const deliveries = async () => (await harness.admin.ok('GET', `/organizations/${customer.orgId}/webhook-deliveries`)).data as Array<Record<string, any>>;
  const bodyOf = (received: ReceivedWebhook) => JSON.parse(received.body) as { type: string; timestamp: string; data: Record<string, unknown> };

  function expectSigned(received: readonly ReceivedWebhook[]): void {
    // each attempt is signed afresh (its own timestamp), and checks with the secret the PUT gave
    for (const attempt of received) verifyWebhook(secret, attempt.headers, attempt.body, new Date(attempt.at));
  }

  it('delivers the crossing of 50 % once, after the receiver answered 500 twice, with a valid signature', async () => {
    receiver.answer = (index) => (index < 2 ? 500 : 200);
    for (let index = 0; index < 3; index++) await request();
    const pending = await eventually(async () => {
      const [delivery] = await deliveries();
      expect(delivery).to.deep.include({ status: 'pending', attempts: 1, last_status: 500, last_error: 'HTTP 500: receiver down' });
      return delivery!;
    }, 15_000);
    await eventually(async () => expect(receiver.received).to.have.length(3), 30_000, 100);
    const [first, second, third] = receiver.received;
    expect(receiver.received.map((attempt) => attempt.status)).to.deep.equal([500, 500, 200]);
    expect(new Set(receiver.received.map((attempt) => attempt.headers['webhook-id'])), 'one message, the same id on every attempt').to.deep.equal(new Set([pending.id]));
    // the back-off: 2 s after the first attempt, 10 s after the second (the ticks come every second)
    expect(second!.at - first!.at).to.be.at.least(1_500);
    expect(third!.at - second!.at).to.be.at.least(9_500);
    expectSigned(receiver.received);
    const body = bodyOf(third!);
    expect(body.type).to.equal('budget.threshold_crossed');
    expect(body.data).to.deep.equal({
      organization_id: customer.orgId,
      scope: 'key',
      scope_id: customer.keyId,
      period: 'day',
      period_start: body.timestamp.slice(0, 10),
      threshold_percent: 50,
      limit_usd: '0.00003',
      spent_usd: '0.000018',
      request_id: body.data.request_id,
    });
    expect(body.data.request_id).to.match(/^gen-/);
    const [delivered] = await deliveries();
    expect(delivered).to.deep.include({ id: pending.id, status: 'delivered', attempts: 3, last_status: 200, last_error: null, next_attempt_at: null });
  });

  it('delivers the crossing of 80 % and the low balance of the next charge, each once', async () => {
    receiver.received.length = 0;
    receiver.answer = () => 200;
    await request();
    await eventually(async () => expect(receiver.received).to.have.length(2), 15_000, 100);
    expectSigned(receiver.received);
    const byType = Object.fromEntries(receiver.received.map((attempt) => [bodyOf(attempt).type, bodyOf(attempt).data]));
    expect(byType['budget.threshold_crossed']).to.deep.include({ threshold_percent: 80, spent_usd: '0.000024', limit_usd: '0.00003' });
    expect(byType['balance.low']).to.deep.include({ organization_id: customer.orgId, threshold_usd: '0.00003', balance_usd: '0.000026' });
    await eventually(async () => expect((await deliveries()).map((delivery) => delivery.status)).to.deep.equal(['delivered', 'delivered', 'delivered']));
  });

  it('sends a signed sample from the test endpoint', async () => {
    receiver.received.length = 0;
    const sample = await harness.admin.ok('POST', `/organizations/${customer.orgId}/webhook/test`);
    expect(sample).to.deep.include({ object: 'webhook_delivery', type: 'webhook.test', status: 'pending', attempts: 0 });
    await eventually(async () => expect(receiver.received).to.have.length(1), 15_000, 100);
    expectSigned(receiver.received);
    expect(receiver.received[0]!.headers['webhook-id']).to.equal(sample.id);
    expect(bodyOf(receiver.received[0]!)).to.deep.include({ type: 'webhook.test' });
  });

  it('sends nothing again after a rebuild of the alerts projection, and goes on alerting on what follows', async () => {
    receiver.received.length = 0;
    const rebuilt = await harness.admin.ok('POST', '/projections/budget_alerts/rebuild');
    expect(rebuilt).to.deep.include({ projection: 'budget_alerts' });
    // a few ticks of the dispatcher after the rebuilt generation serves: nothing was queued again
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(receiver.received, 'sent again after the rebuild').to.deep.equal([]);
    expect(await deliveries()).to.have.length(4);

    // the key's limit doubled to 60,000 n$: its 50 % is a new threshold, crossed by the next charge (30,000);
    // the balance (20,000) stays below its level, an alert already raised until a top-up
    await harness.admin.ok('PATCH', `/keys/${customer.keyId}`, { limits: { daily_usd: '0.00006' } });
    await request();
    await eventually(async () => expect(receiver.received).to.have.length(1), 15_000, 100);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(receiver.received.map((attempt) => bodyOf(attempt).data)).to.deep.equal([
      {
        organization_id: customer.orgId,
        scope: 'key',
        scope_id: customer.keyId,
        period: 'day',
        period_start: bodyOf(receiver.received[0]!).timestamp.slice(0, 10),
        threshold_percent: 50,
        limit_usd: '0.00006',
        spent_usd: '0.00003',
        request_id: bodyOf(receiver.received[0]!).data.request_id,
      },
    ]);
    expect(await deliveries()).to.have.length(5);
  });
});
