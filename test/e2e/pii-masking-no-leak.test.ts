import { expect } from 'chai';
import { pino } from 'pino';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';
import { postText } from '../support/text-format-client.js';

const METRICS_TOKEN = 'scraper-token-0123456789abcdef';
const EMAIL = 'jane.doe@example.com';
const CARD = '4111 1111 1111 1111';

/**
 * What a masked request leaves behind on the gateway's side holds no original value: not the log (info
 * level, every line), not the events of the account, not the metrics, not a refusal's message. The
 * placeholders' values live in the request's memory only.
 */
describe('PII masking leaves nothing personal on the side', function () {
  this.timeout(60_000);
  let harness: GatewayHarness;
  const lines: string[] = [];
  before(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    harness = await startGatewayHarness({ METRICS_TOKEN }, { logger });
  });
  after(async () => {
    try {
      await harness.checkLedger();
    } finally {
      await harness.close();
    }
  });

  it('in logs, events, metrics and error messages, whatever way the request ends', async () => {
    const { orgId, secret } = await harness.admin.organizationWithKey({ credits: '1', organization: { pii_masking: true } });
    const body = (extra: Record<string, unknown> = {}) => ({ model: 'openai/gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: `card ${CARD}, mail ${EMAIL}` }], ...extra });
    harness.openai.enqueue({ text: 'Charged [CARD_1].' });
    const ok = await postText(harness.gateway.url, 'chat', secret, body());
    expect(ok.body.choices[0].message.content).to.equal(`Charged ${CARD}.`);
    harness.openai.enqueue({ error: { status: 400, body: { error: { message: 'cannot mail [EMAIL_1]', type: 'invalid_request_error', param: null, code: null } } } });
    const providerError = await postText(harness.gateway.url, 'chat', secret, body());
    expect(providerError.status).to.equal(400);
    expect(JSON.stringify(providerError.body), "the provider's own error, as it wrote it").to.include('[EMAIL_1]');
    const streamed = await postText(harness.gateway.url, 'chat', secret, body({ stream: true }));
    expect(streamed.status).to.equal(200);
    const refused = await postText(harness.gateway.url, 'chat', secret, body({ max_tokens: 10_000_000, temperature: 'hot' }));
    expect(refused.status).to.equal(400);
    await harness.settledMoney(orgId);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const events = JSON.stringify((await harness.gateway.store.readStream(`account-${orgId}`)).map((event) => [event.type, event.data]));
    const metrics = await (await fetch(`${harness.gateway.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(lines.join('\n')).to.include('"msg":"request"');
    for (const [where, text] of [
      ['log', lines.join('\n')],
      ['events', events],
      ['metrics', metrics],
      ['refusal', JSON.stringify(refused.body)],
    ] as const) {
      for (const original of [EMAIL, CARD, CARD.replace(/ /g, '')]) expect(text, `${where} holds ${original}`).not.to.include(original);
    }
  });
});
