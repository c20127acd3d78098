import { expect } from 'chai';
import { accountStreamId } from '../../../src/ledger/account-events.js';
import { useGatewayHarness, type GatewayHarness } from '../../support/gateway-harness.js';
import { TEST_ADMIN_TOKEN } from '../../support/test-gateway.js';
import { chat, gate, MODEL, postChat, providerReceived } from './money-rules-kit.js';

/**
 * How a request that gets no usable answer closes its reservation, as finance reads it in the log: a
 * provider's refusal or a broken answer is released (`provider_error`), a client that hangs up before the
 * answer is released (`cancelled`), a key revoked while the provider works is cut off at no cost; none of
 * them is charged. Every organization starts with $1 = 1,000,000,000 n$.
 */
describe('money rules: requests that fail are closed for nothing, each as what it was', function () {
  this.timeout(60_000);
  const current = useGatewayHarness();
  const ONE_USD = 1_000_000_000n;

  /** The event that closed the organization's last reservation, and its data. */
  async function closingOf(harness: GatewayHarness, orgId: string): Promise<{ type: string; data: Record<string, unknown> }> {
    await harness.settledMoney(orgId); // waits until nothing is reserved
    const events = await harness.gateway.store.readStream(accountStreamId(orgId));
    const last = events.at(-1)!;
    return { type: last.type, data: last.data as Record<string, unknown> };
  }

  /** Provider failures counted so far for the `openai` provider, all kinds together (GET /metrics). */
  async function providerFailuresCounted(harness: GatewayHarness): Promise<number> {
    const text = await (await fetch(`${harness.gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).text();
    return [...text.matchAll(/^gateway_provider_errors_total\{provider="openai",[^}]*\} (\d+)$/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
  }

  it("passes a provider's 400 through as it is and releases the reservation", async () => {
    const { orgId, secret } = await current().customer('1');
    current().openai.enqueue({ error: { status: 400, body: { error: { message: 'bad stop sequence', type: 'invalid_request_error', code: null } } } });
    const answer = await postChat(current(), secret, chat(100));
    expect(answer.status).to.equal(400);
    expect(answer.body.error.message).to.equal('bad stop sequence');
    expect(await closingOf(current(), orgId)).to.deep.include({ type: 'ReservationReleased' });
    expect((await closingOf(current(), orgId)).data.reason).to.equal('provider_error');
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: ONE_USD, reserved: 0n });
  });

  it('answers 502 when the provider sends a body that is not JSON, and releases the reservation', async () => {
    const { orgId, secret } = await current().customer('1');
    current().openai.enqueue({ error: { status: 200, body: '<html>upstream maintenance</html>' } });
    const failuresBefore = await providerFailuresCounted(current());
    const answer = await postChat(current(), secret, chat(100));
    expect(await providerFailuresCounted(current()), 'a provider failure in the metrics').to.equal(failuresBefore + 1);
    expect(answer.status).to.equal(502);
    expect(answer.body.error).to.include({ code: 'provider_error', message: 'the provider answered with a body that is not JSON' });
    expect((await closingOf(current(), orgId)).data).to.deep.include({ reason: 'provider_error' });
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: ONE_USD, reserved: 0n });
  });

  it('releases the reservation as cancelled when the client hangs up before the answer', async () => {
    const { orgId, secret } = await current().customer('1');
    current().openai.reset();
    const held = gate();
    current().openai.enqueue({ holdUntil: held.promise });
    const failuresBefore = await providerFailuresCounted(current());
    const client = new AbortController();
    const pending = fetch(`${current().gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(chat(100)),
      signal: client.signal,
    }).catch((error: unknown) => error);
    await providerReceived(current(), 1);
    client.abort();
    await pending;
    const closing = await closingOf(current(), orgId);
    held.open();
    expect(closing.type).to.equal('ReservationReleased');
    expect(closing.data.reason).to.equal('cancelled');
    expect(await providerFailuresCounted(current()), "the client's hang-up is not the provider's failure").to.equal(failuresBefore);
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: ONE_USD, reserved: 0n });
  });

  it('settles, not cuts off, a stream the client hangs up on, at the tokens that had arrived', async () => {
    const { orgId, secret } = await current().customer('1');
    const held = gate();
    // the six deltas "a ", "b ", … "f" and the finish are sent, the end of the stream is held; no usage
    current().openai.enqueue({ text: 'a b c d e f', deltas: 6, usage: null, holdLastEventUntil: held.promise });
    const client = new AbortController();
    const response = await fetch(`${current().gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(chat(100, { stream: true })),
      signal: client.signal,
    });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('"finish_reason":"stop"')) text += new TextDecoder().decode((await reader.read()).value);
    client.abort();
    const closing = await closingOf(current(), orgId);
    held.open();
    expect(closing.type).to.equal('ReservationSettled');
    // input: the estimate of chat(), 11 tokens (money-rules-kit.ts); output: "a b c d e f" is 6 o200k
    // tokens, × 5/4 = 7.5, rounded up 8. 11 × 150 + 8 × 600 = 1,650 + 4,800 = 6,450 n$
    expect(closing.data.cost).to.equal('6450');
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: ONE_USD - 6_450n, reserved: 0n });
  });

  it('cuts off, at no cost, a request whose key is revoked while the provider works, and answers 401', async () => {
    const { orgId, keyId, secret } = await current().customer('1');
    current().openai.reset();
    const held = gate();
    current().openai.enqueue({ holdUntil: held.promise });
    const pending = postChat(current(), secret, { model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] });
    await providerReceived(current(), 1);
    await current().admin.ok('POST', `/keys/${keyId}/revoke`, {});
    const answer = await pending;
    held.open();
    expect(answer.status).to.equal(401);
    expect(answer.body.error.code).to.equal('key_revoked');
    const closing = await closingOf(current(), orgId);
    expect(closing.type).to.equal('ReservationCutOff');
    // nothing of the answer had arrived: 0 n$
    expect(closing.data.cost).to.equal('0');
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: ONE_USD, reserved: 0n });
  });
});
