import { expect } from 'chai';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import { postText, textRequest, type ClientFormat } from '../../support/text-format-client.js';
import { chat, MODEL, postChat } from './money-rules-kit.js';

/**
 * The cost cap per request (`X-Max-Cost-USD`, the key's `max_cost_per_request_usd`) through the request.
 * Amounts in n$ from the test catalog (money-rules-kit.ts): openai/gpt-4o-mini costs 150 an input token and
 * 600 an output token, anthropic/claude-sonnet-4-5 3,000 and 15,000 (its input reserved at the 3,750 of a cache write, the dearest it can be reported at). `chat(cap)` and the same messages body
 * are estimated at 11 input tokens; the responses body `{input: "hello"}` at 6 ("hello" 1 token × 5/4 = 2,
 * one object 4). The provider is scripted to use the whole lowered cap: the largest answer the cap allows.
 */
describe('money rules: the cost cap of a request', function () {
  this.timeout(60_000);
  const current = useGatewayHarness();

  /** What the organization's requests reserved and were charged, once none is open. */
  async function ledger(orgId: string): Promise<{ reserved: string[]; charged: Array<{ cost: string; overrun: string }> }> {
    await current().settledMoney(orgId);
    const events = await current().gateway.store.readStream(`account-${orgId}`);
    return {
      reserved: events.filter((event) => event.type === 'FundsReserved').map((event) => (event.data as { amount: string }).amount),
      charged: events.filter((event) => event.type === 'ReservationSettled').map((event) => {
        const { cost, overrun } = event.data as { cost: string; overrun: string };
        return { cost, overrun };
      }),
    };
  }

  it('lowers max_tokens to the largest answer the cap allows: the provider receives it, and the charge fits the cap', async () => {
    const { orgId, secret } = await current().customer('1');
    // cap $0.00003 = 30,000 n$: 1,650 + 600 t ≤ 30,000 → t = 47; reserve 1,650 + 28,200 = 29,850 n$
    current().openai.enqueue({ usage: { inputTokens: 11, outputTokens: 47 } });
    const answer = await postChat(current(), secret, chat(100), { 'X-Max-Cost-USD': '0.00003' });
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('x-max-cost-applied')).to.equal('0.00003');
    expect(current().openai.lastRequest!.body).to.deep.include({ max_tokens: 47 });
    expect(await ledger(orgId)).to.deep.equal({ reserved: ['29850'], charged: [{ cost: '29850', overrun: '0' }] });
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 1_000_000_000n - 29_850n, reserved: 0n });
  });

  it("applies the key's max_cost_per_request_usd to a request that sends no header", async () => {
    // the key's $0.00002 = 20,000 n$: 600 t ≤ 18,350 → 30 tokens, reserve 1,650 + 18,000 = 19,650 n$;
    // the provider's default usage (12 input, 7 output tokens) is charged: 1,800 + 4,200 = 6,000 n$
    const { orgId, keyId, secret } = await current().customer('1', { max_cost_per_request_usd: '0.00002' });
    expect(await current().admin.ok('GET', `/keys/${keyId}`)).to.deep.include({ max_cost_per_request_usd: '0.00002', max_concurrent_requests: null });
    const answer = await postChat(current(), secret, chat(100));
    expect(answer.headers.get('x-max-cost-applied')).to.equal('0.00002');
    expect(current().openai.lastRequest!.body).to.deep.include({ max_tokens: 30 });
    expect(await ledger(orgId)).to.deep.equal({ reserved: ['19650'], charged: [{ cost: '6000', overrun: '0' }] });
  });

  it('refuses with 402 request_cost_cap_exceeded when the input alone costs more than the cap, charging and reserving nothing', async () => {
    const { orgId, secret } = await current().customer('1');
    const before = current().openai.requests.length;
    // the input and a one-token answer: 1,650 + 600 = 2,250 n$ > 2,000
    const refused = await postChat(current(), secret, chat(100), { 'X-Max-Cost-USD': '0.000002' });
    expect(refused.status).to.equal(402);
    expect(refused.headers.get('x-max-cost-applied')).to.equal('0.000002');
    expect(refused.body.error).to.deep.equal({
      type: 'insufficient_quota_error',
      code: 'request_cost_cap_exceeded',
      message: "its input (with a one-token answer) costs up to 0.00000225 USD, more than its cost cap of 0.000002 USD (X-Max-Cost-USD or the key's max_cost_per_request_usd); nothing was charged",
      param: null,
    });
    const messages = await postText(current().gateway.url, 'messages', secret, chat(100), { 'X-Max-Cost-USD': '0.000002' });
    expect(messages.status).to.equal(402);
    expect(messages.body.error.type).to.equal('insufficient_quota_error');
    expect(current().openai.requests.length, 'the provider was not called').to.equal(before);
    expect(await ledger(orgId)).to.deep.equal({ reserved: [], charged: [] });
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 1_000_000_000n, reserved: 0n });
  });

  const streams: ReadonlyArray<{ client: ClientFormat; model: string; provider: 'openai' | 'anthropic'; field: string; tokens: number; cost: number; cap: string; way: string }> = [
    // the input at the cache-write rate, the dearest it can be reported at: 11 × 3,750 = 41,250 + 15,000 t ≤
    // 500,000 → 30 tokens: 41,250 + 450,000 = 491,250 n$ (the largest answer writes its 11 input tokens to the cache)
    { client: 'chat', model: 'anthropic/claude-sonnet-4-5', provider: 'anthropic', field: 'max_tokens', tokens: 30, cost: 491_250, cap: '0.0005', way: 'translated to messages' },
    // 1,650 + 600 t ≤ 30,000 → 47: 29,850 n$
    { client: 'messages', model: MODEL, provider: 'openai', field: 'max_completion_tokens', tokens: 47, cost: 29_850, cap: '0.00003', way: 'translated to chat' },
    // 6 × 150 = 900 + 600 t ≤ 30,000 → 48: 900 + 28,800 = 29,700 n$
    { client: 'responses', model: MODEL, provider: 'openai', field: 'max_output_tokens', tokens: 48, cost: 29_700, cap: '0.00003', way: 'as sent' },
  ];

  for (const { client, model, provider, field, tokens, cost, cap, way } of streams) {
    it(`caps a ${client} stream ${way}: the provider receives ${field}: ${tokens}, the charge fits the cap`, async () => {
      const { orgId, secret } = await current().customer('1');
      const inputTokens = client === 'responses' ? 6 : 11;
      const usage = provider === 'anthropic' ? { inputTokens: 0, cacheWriteInputTokens: inputTokens, outputTokens: tokens } : { inputTokens, outputTokens: tokens };
      current()[provider].enqueue({ usage, finish: 'max_tokens' });
      const answer = await postText(current().gateway.url, client, secret, textRequest(client, model, { stream: true, maxTokens: 100 }), { 'X-Max-Cost-USD': cap });
      expect(answer.status).to.equal(200);
      expect(answer.headers.get('x-max-cost-applied')).to.equal(cap);
      expect(answer.events!.length).to.be.greaterThan(1);
      expect(current()[provider].lastRequest!.body).to.deep.include({ [field]: tokens });
      expect(await ledger(orgId)).to.deep.equal({ reserved: [String(cost)], charged: [{ cost: String(cost), overrun: '0' }] });
    });
  }

  it('runs a request whose worst case costs exactly its cap, or exactly a lowered answer, without lowering it further', async () => {
    const { orgId, secret } = await current().customer('1');
    const cases = [
      // max_tokens 100: 1,650 + 60,000 = 61,650 n$ = the cap: the request runs as it was sent
      { cap: '0.00006165', maxTokens: 100, reserve: '61650' },
      // 1,650 + 600 × 47 = 29,850 n$ = the cap: 47 tokens fit exactly
      { cap: '0.00002985', maxTokens: 47, reserve: '29850' },
      // the input and a one-token answer, 1,650 + 600 = 2,250 n$ = the cap: one token, not a refusal
      { cap: '0.00000225', maxTokens: 1, reserve: '2250' },
    ];
    for (const { cap, maxTokens } of cases) {
      current().openai.enqueue({ usage: { inputTokens: 11, outputTokens: maxTokens } });
      const answer = await postChat(current(), secret, chat(100), { 'X-Max-Cost-USD': cap });
      expect(answer.status, cap).to.equal(200);
      expect(current().openai.lastRequest!.body, cap).to.deep.include({ max_tokens: maxTokens });
    }
    const reserves = cases.map((each) => each.reserve);
    expect(await ledger(orgId)).to.deep.equal({ reserved: reserves, charged: reserves.map((cost) => ({ cost, overrun: '0' })) });
    // 1 USD − (61,650 + 29,850 + 2,250) n$
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 999_906_250n, reserved: 0n });
  });

  it('refuses a cap that is not an amount above zero with 400 naming the header, charging nothing', async () => {
    const { orgId, secret } = await current().customer('1');
    const before = current().openai.requests.length;
    for (const cap of ['abc', '0', '-0.01']) {
      const refused = await postChat(current(), secret, chat(100), { 'X-Max-Cost-USD': cap });
      expect(refused.status, cap).to.equal(400);
      expect(refused.body.error, cap).to.deep.equal({
        type: 'invalid_request_error',
        code: 'invalid_request',
        message: `X-Max-Cost-USD must be an amount of USD above zero, such as 0.05 (got ${JSON.stringify(cap)})`,
        param: 'X-Max-Cost-USD',
      });
    }
    expect(current().openai.requests.length, 'the provider was not called').to.equal(before);
    expect(await ledger(orgId)).to.deep.equal({ reserved: [], charged: [] });
  });

  it('refuses images and video jobs over the cap rather than make fewer images or seconds', async () => {
    const { orgId, secret } = await current().customer('1');
    const post = (path: string, body: unknown) =>
      fetch(`${current().gateway.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'x-max-cost-usd': '0.10' },
        body: JSON.stringify(body),
      });
    // 3 images × $0.04 = $0.12; 4 seconds × $0.10 = $0.40
    const images = await post('/v1/images/generations', { model: 'openai/gpt-image-1', prompt: 'a lighthouse', n: 3 });
    expect(images.status).to.equal(402);
    expect(((await images.json()) as { error: { message: string } }).error.message).to.match(/^this request can cost up to 0\.12 USD, more than its cost cap of 0\.10 USD/);
    const video = await post('/v1/videos', { model: 'openai/sora-2', prompt: 'a lighthouse at dawn', seconds: 4 });
    expect(video.status).to.equal(402);
    expect(((await video.json()) as { error: { code: string } }).error.code).to.equal('request_cost_cap_exceeded');
    expect(await ledger(orgId)).to.deep.equal({ reserved: [], charged: [] });
  });
});
