import { expect } from 'chai';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import { eventually } from '../../support/eventually.js';
import { chat, gate, MODEL, postChat, providerReceived } from './money-rules-kit.js';

/**
 * Tokens per minute: a request is admitted counting its input estimate and the output cap of every answer
 * it asks for, the model's ceiling when it sets none (so a burst cannot overshoot), and when it ends the
 * count is corrected to the tokens it really used. Token counts from money-rules-kit.ts: `chat(cap)` is
 * admitted as 11 + cap tokens.
 */
describe('money rules: tokens per minute, admitted by the cap and corrected by the usage', function () {
  this.timeout(60_000);
  const current = useGatewayHarness();

  it('counts the output cap at admission and the real usage after the request', async () => {
    const { secret } = await current().customer('10', { tpm: 1_000 });
    current().openai.reset();
    const held = gate();
    // the first request really uses 500 + 400 = 900 tokens
    current().openai.enqueue({ holdUntil: held.promise, usage: { inputTokens: 500, outputTokens: 400 } });
    // chat(900) is admitted as 911 tokens and held at the provider
    const first = postChat(current(), secret, chat(900));
    await providerReceived(current(), 1);

    // chat(80) would add 91: 911 + 91 = 1,002 > 1,000 (counting only the input, 11 + 91, it would pass)
    const whileOpen = await postChat(current(), secret, chat(80));
    expect(whileOpen.status, JSON.stringify(whileOpen.body)).to.equal(429);
    expect(whileOpen.body.error).to.include({ code: 'rate_limit_exceeded' });
    expect(whileOpen.headers.get('retry-after')).to.match(/^\d+$/);

    held.open();
    expect((await first).status).to.equal(200);
    // After the correction the window holds 900: chat(80) adds 91 = 991 ≤ 1,000 and is served (the
    // correction follows the answer, so allow it a moment).
    await eventually(async () => expect((await postChat(current(), secret, chat(80))).status).to.equal(200));
    // The window now holds 900 + the default usage 19 = 919: chat(100) would add 111 = 1,030 > 1,000,
    // refused, as it would not be if the correction had counted nothing (0 + 19 + 111).
    const overUsage = await postChat(current(), secret, chat(100));
    expect(overUsage.status, JSON.stringify(overUsage.body)).to.equal(429);
    expect(current().openai.requests.length, 'the refused requests never reached the provider').to.equal(2);
  });

  it('counts nothing for a request the provider refused (released, no tokens used)', async () => {
    const { secret } = await current().customer('10', { tpm: 1_000 });
    current().openai.enqueue({ error: { status: 500 } });
    // chat(900) is admitted as 911, then the provider fails: the count goes to 0
    expect((await postChat(current(), secret, chat(900))).status).to.equal(500);
    // a second chat(900): 0 + 911 ≤ 1,000 once the correction is in (911 + 911 would be refused)
    await eventually(async () => expect((await postChat(current(), secret, chat(900))).status).to.equal(200));
  });

  it('counts the model ceiling at admission when the request sets no max_tokens (fails if only a cap the client set is counted)', async () => {
    const { secret } = await current().customer('10', { tpm: 20_000 });
    current().openai.reset();
    const held = gate();
    current().openai.enqueue({ holdUntil: held.promise });
    // without max_tokens the output may reach gpt-4o-mini's ceiling: admitted as 11 + 16,384 = 16,395 tokens
    const noCap = { model: MODEL, messages: [{ role: 'user', content: 'hello' }] };
    const first = postChat(current(), secret, noCap);
    await providerReceived(current(), 1);
    // a second one would make 32,790 > 20,000 (counting the input alone, 11 + 11, it would pass)
    const second = await postChat(current(), secret, noCap);
    expect(second.status, JSON.stringify(second.body)).to.equal(429);
    expect(second.body.error.message).to.equal('more than 20000 tokens per minute for this key');
    held.open();
    expect((await first).status).to.equal(200);
    expect(current().openai.requests.length, 'the refused request never reached the provider').to.equal(1);
  });

  it("counts every answer chat's n asks for at admission", async () => {
    const { secret } = await current().customer('10', { tpm: 1_000 });
    current().openai.reset();
    // n: 10 answers of up to 90 tokens: 11 + 900 = 911 ≤ 1,000, served
    expect((await postChat(current(), secret, chat(90, { n: 10 }))).status).to.equal(200);
    // n: 10 of up to 100: 11 + 1,000 = 1,011 > 1,000 on its own, refused (one answer, 111, would pass)
    const over = await postChat(current(), secret, chat(100, { n: 10 }));
    expect(over.status, JSON.stringify(over.body)).to.equal(429);
    expect(current().openai.requests.length).to.equal(1);
  });
});
