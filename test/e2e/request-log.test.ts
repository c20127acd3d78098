import { expect } from 'chai';
import { pino } from 'pino';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';
import { postText } from '../support/text-format-client.js';
import { gate, providerReceived } from './money-rules/money-rules-kit.js';

/**
 * One JSON log line per request, with who, what and what it cost, never the key's secret nor the
 * message's contents (an operator's log pipeline may be shared more widely than the payloads).
 */
describe('the request log', () => {
  let harness: GatewayHarness;
  const lines: Array<Record<string, any>> = [];
  before(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    harness = await startGatewayHarness({}, { logger });
  });
  after(async () => {
    try {
      await harness.checkLedger();
    } finally {
      await harness.close();
    }
  });

  const requestLines = (requestId: string | null) => lines.filter((line) => line.msg === 'request' && line.requestId === requestId);

  it('logs a settled request with its key, organization, model, usage, cost and times', async () => {
    const { orgId, keyId, secret } = await harness.customer('1');
    harness.openai.enqueue({ text: 'a secret answer', usage: { inputTokens: 1_000, outputTokens: 2_000 } });
    const answer = await postText(harness.gateway.url, 'chat', secret, { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'a private question' }] });
    expect(answer.status).to.equal(200);
    const requestId = answer.headers.get('x-request-id');
    await harness.settledMoney(orgId);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const logged = requestLines(requestId);
    expect(logged, 'one line for the request').to.have.length(1);
    const line = logged[0]!;
    // 1,000 input tokens at $0.15/M + 2,000 output tokens at $0.60/M = $0.00015 + $0.0012 = $0.00135
    expect(line).to.deep.include({ method: 'POST', path: '/v1/chat/completions', status: 200, completed: true, endpoint: 'chat', keyId, orgId, spaceId: null });
    expect(line).to.deep.include({ model: 'openai/gpt-4o-mini', reservation: 'settled', costUsd: '0.00135' });
    expect(line.usage).to.deep.include({ inputTokens: 1_000, outputTokens: 2_000 });
    for (const field of ['durationMs', 'providerMs', 'overheadMs']) expect(line[field], field).to.be.a('number').and.at.least(0);
    const text = JSON.stringify(line);
    expect(text).to.not.contain(secret).and.not.contain('private question').and.not.contain('secret answer');
  });

  it('logs a refused request with its status and no cost', async () => {
    const { secret } = await harness.customer('1');
    const answer = await postText(harness.gateway.url, 'chat', secret, { model: 'nobody/nothing', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.status).to.equal(404);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [line] = requestLines(answer.headers.get('x-request-id'));
    expect(line).to.deep.include({ status: 404, endpoint: 'chat' });
    expect(line).to.not.have.property('costUsd');
  });

  it('logs a client that hangs up before the answer as a released request, not as an error of the gateway', async () => {
    const { orgId, secret } = await harness.customer('1');
    harness.openai.reset();
    const held = gate();
    harness.openai.enqueue({ holdUntil: held.promise });
    const client = new AbortController();
    const pending = fetch(`${harness.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      signal: client.signal,
    }).catch((error: unknown) => error);
    await providerReceived(harness, 1);
    client.abort();
    await pending;
    await harness.settledMoney(orgId); // waits until the reservation is closed: the provider still holds its answer
    held.open();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const logged = lines.filter((line) => line.msg === 'request' && line.orgId === orgId);
    expect(logged, 'one line for the request').to.have.length(1);
    expect(logged[0]).to.deep.include({ completed: false, reservation: 'released' });
    const requestId = logged[0]!.requestId as string;
    // pino's level 50 is error: a client's hang-up is not a fault of the gateway to page anyone about
    expect(lines.filter((line) => line.requestId === requestId && line.level >= 50)).to.deep.equal([]);
  });
});
