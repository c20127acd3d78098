import { expect } from 'chai';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import { chat, gate, MODEL, postChat, providerReceived, reservedOf } from './money-rules-kit.js';
import { parseSseText } from '../../support/format-fixtures/sse-text.js';
import { postText } from '../../support/text-format-client.js';

/**
 * The reserve and the charge as numbers worked out by hand, so that an estimator or pricing bug cannot
 * move the expectation with it (money-rules-kit.ts has the prices: 150 n$ an input token, 600 n$ an
 * output token on openai/gpt-4o-mini, response ceiling 16,384 tokens).
 */
describe('money rules: the reserve margin and the charge of a stream without usage, as numbers', function () {
  this.timeout(60_000);
  const current = useGatewayHarness();

  it('reserves the input with the tokenizer margin plus the output cap, and shows it while the request is open', async () => {
    const { orgId, secret } = await current().customer('1');
    current().openai.reset();
    const held = gate();
    current().openai.enqueue({ holdUntil: held.promise });
    // strings "user" (1 token) and "Count to three." (4 tokens) = 5, × 5/4 = 6.25, rounded up 7; two
    // objects × 4 = 8; input 15 tokens. Reserve 15 × 150 + 250 × 600 = 2,250 + 150,000 = 152,250 n$.
    const body = { model: MODEL, max_tokens: 250, messages: [{ role: 'user', content: 'Count to three.' }] };
    const pending = postChat(current(), secret, body);
    await providerReceived(current(), 1);
    expect(await reservedOf(current(), orgId)).to.equal(152_250n);
    held.open();
    expect((await pending).status).to.equal(200);
    // charged the default 6,000 n$, not the reserve: 1,000,000,000 − 6,000
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 999_994_000n, reserved: 0n });
  });

  it('names the exact reserve in the 402, with the model ceiling when the request sets no cap or a larger one', async () => {
    // $0.00001 = 10,000 n$ covers none of these reserves
    const { secret } = await current().customer('0.00001');
    const cases: Array<[Record<string, unknown>, string]> = [
      // 11 × 150 + 100 × 600 = 1,650 + 60,000 = 61,650 n$
      [chat(100), '0.00006165'],
      // no cap: the ceiling, 1,650 + 16,384 × 600 = 1,650 + 9,830,400 = 9,832,050 n$
      [{ model: MODEL, messages: [{ role: 'user', content: 'hello' }] }, '0.00983205'],
      // a cap above the ceiling reserves the ceiling too
      [chat(128_000), '0.00983205'],
    ];
    for (const [body, reserve] of cases) {
      const answer = await postChat(current(), secret, body);
      expect(answer.status, JSON.stringify(body)).to.equal(402);
      expect(answer.body.error.code).to.equal('insufficient_funds');
      expect(answer.body.error.message, JSON.stringify(body)).to.contain(`this request reserves ${reserve} USD`);
    }
  });

  it('answers a 402 on /v1/messages with the exact text of the spec, without the reserve hint of the other formats', async () => {
    // spec 7.3.1: Anthropic clients tell the causes of a 402 apart by the message text alone
    const { secret } = await current().customer('0.00001');
    const answer = await postText(current().gateway.url, 'messages', secret, { model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] });
    expect(answer.status).to.equal(402);
    expect(answer.body.error.message).to.equal('organization balance insufficient for this request');
  });

  it('charges a stream without provider usage its counted tokens with the margin, exactly', async () => {
    const { orgId, secret } = await current().customer('1');
    current().openai.enqueue({ usage: null });
    // Input: the reserve's estimate, 11 tokens (money-rules-kit.ts). Output: the default answer "Hello from
    // the fake provider." is 6 o200k tokens, × 5/4 = 7.5, rounded up 8. 11 × 150 + 8 × 600 = 1,650 + 4,800 = 6,450 n$.
    const response = await fetch(`${current().gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(chat(100, { stream: true })),
    });
    expect(response.status).to.equal(200);
    const events = parseSseText(await response.text());
    expect(events.at(-1)?.data).to.equal('[DONE]');
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 1_000_000_000n - 6_450n, reserved: 0n });
  });

  it('charges a stream with provider usage that usage, not the count', async () => {
    const { orgId, secret } = await current().customer('1');
    // 40 × 150 + 3 × 600 = 6,000 + 1,800 = 7,800 n$
    current().openai.enqueue({ usage: { inputTokens: 40, outputTokens: 3 } });
    const response = await fetch(`${current().gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(chat(100, { stream: true })),
    });
    expect(response.status).to.equal(200);
    await response.text();
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 1_000_000_000n - 7_800n, reserved: 0n });
  });
});
