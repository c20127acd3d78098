import { expect } from 'chai';
import OpenAI from 'openai';
import { parseUsd } from '../../src/billing/money.js';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';
import { validateChatStream } from '../support/stream-validators/chat-stream-validator.js';

const TEN_USD = parseUsd('10');
// test catalog: openai/gpt-4o-mini at $0.15 / $0.60 per Mtok; the fake's default usage is 12 in, 7 out
const DEFAULT_COST = 12n * 150n + 7n * 600n;

describe('chat completions end to end (official openai SDK)', function () {
  this.timeout(60_000);
  let harness: GatewayHarness;
  before(async () => {
    harness = await startGatewayHarness();
  });
  after(async () => {
    await harness.checkLedger();
    await harness.close();
  });
  beforeEach(() => {
    harness.openai.reset();
    harness.anthropic.reset();
  });

  const client = (secret: string) => new OpenAI({ apiKey: secret, baseURL: `${harness.gateway.url}/v1`, maxRetries: 0 });

  it('answers, with the request id as id and the catalog name as model, and charges exactly the usage', async () => {
    const { orgId, secret } = await harness.customer();
    const { data, response } = await client(secret)
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 100 })
      .withResponse();
    expect(data.id).to.equal(response.headers.get('x-request-id'));
    expect(data.id).to.match(/^gen-/);
    expect(data.model).to.equal('openai/gpt-4o-mini');
    expect(data.choices[0]!.message.content).to.equal('Hello from the fake provider.');
    expect(data.usage).to.include({ prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 });
    expect(response.headers.get('x-pii-masking')).to.equal('off');
    expect((harness.openai.lastRequest!.body as { model: string }).model, 'the provider gets its own name').to.equal('gpt-4o-mini');
    expect(await harness.settledMoney(orgId)).to.deep.equal({ balance: TEN_USD - DEFAULT_COST, reserved: 0n });
  });

  it('passes fields it does not know to the provider unchanged', async () => {
    const { secret } = await harness.customer();
    await client(secret).chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      top_p: 0.5,
      // @ts-expect-error a field the SDK does not know
      vendor_extension: { level: 3 },
    });
    expect(harness.openai.lastRequest!.body).to.deep.include({ top_p: 0.5, vendor_extension: { level: 3 } });
  });

  it('streams through the SDK helper, asks the provider for usage and hides it from a client that did not ask', async () => {
    const { orgId, secret } = await harness.customer();
    harness.openai.enqueue({ text: 'one two three four', deltas: 4 });
    const stream = client(secret).chat.completions.stream({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'count' }] });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    stream.on('chunk', (chunk) => chunks.push(chunk));
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.content).to.equal('one two three four');
    expect(chunks.every((chunk) => !chunk.usage), 'no usage chunk for a client that did not ask').to.equal(true);
    expect((harness.openai.lastRequest!.body as { stream_options: unknown }).stream_options).to.deep.equal({ include_usage: true });
    expect((await harness.settledMoney(orgId)).balance).to.equal(TEN_USD - DEFAULT_COST);
  });

  it('shows the usage chunk to a client that asks, and the stream passes the validator', async () => {
    const { secret } = await harness.customer();
    const response = await fetch(`${harness.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], stream: true, stream_options: { include_usage: true } }),
    });
    expect(response.headers.get('content-type')).to.match(/^text\/event-stream/);
    const events = (await response.text()).split('\n\n').filter(Boolean).map((frame) => ({ data: frame.replace(/^data: /, '') }));
    expect(validateChatStream(events, { includeUsage: true })).to.deep.equal([]);
    expect(events.at(-1)!.data).to.equal('[DONE]');
    const usageChunk = JSON.parse(events.at(-2)!.data);
    expect(usageChunk.usage).to.include({ prompt_tokens: 12, completion_tokens: 7 });
    expect(usageChunk.id).to.equal(response.headers.get('x-request-id'));
  });

  it('returns several tool calls, and sends tool results and images in the input', async () => {
    const { secret } = await harness.customer();
    harness.openai.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_time', arguments: { zone: 'CET' } }] });
    const answer = await client(secret).chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is here?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] }],
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
        { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
      ],
    });
    const calls = answer.choices[0]!.message.tool_calls!;
    expect(answer.choices[0]!.finish_reason).to.equal('tool_calls');
    expect(calls.map((call) => call.type === 'function' && [call.function.name, JSON.parse(call.function.arguments)])).to.deep.equal([
      ['get_weather', { city: 'Paris' }],
      ['get_time', { zone: 'CET' }],
    ]);
    const sent = harness.openai.lastRequest!.body as { messages: Array<{ content: Array<{ type: string }> }> };
    expect(sent.messages[0]!.content.map((part) => part.type)).to.deep.equal(['text', 'image_url']);
  });

  it('generates an image through modalities and charges the image price', async () => {
    const { orgId, secret } = await harness.customer();
    const answer = (await client(secret).chat.completions.create({
      model: 'openai/gpt-image-1',
      messages: [{ role: 'user', content: 'a red square' }],
      // @ts-expect-error modalities with image is the gateway's image generation through chat
      modalities: ['image', 'text'],
    })) as OpenAI.Chat.Completions.ChatCompletion & { choices: Array<{ message: { images?: Array<{ type: string; image_url: { url: string } }> } }> };
    const images = answer.choices[0]!.message.images!;
    expect(images).to.have.length(1);
    expect(images[0]).to.deep.include({ type: 'image_url' });
    expect(images[0]!.image_url.url).to.match(/^data:image\/png;base64,/);
    expect(await harness.settledMoney(orgId)).to.deep.equal({ balance: TEN_USD - parseUsd('0.04'), reserved: 0n });
  });

  it('streams an Anthropic model through the chat format with several tool calls and usage intact', async () => {
    const { orgId, secret } = await harness.customer();
    harness.anthropic.enqueue({
      text: 'Let me check.',
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_weather', arguments: { city: 'Rome' } }],
      usage: { inputTokens: 100, outputTokens: 40 },
    });
    const sentAt = Math.floor(Date.now() / 1000);
    const stream = client(secret).chat.completions.stream({
      model: 'anthropic/claude-sonnet-4-5',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'weather in Paris and Rome?' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      stream_options: { include_usage: true },
      max_tokens: 500,
    });
    const final = await stream.finalChatCompletion();
    // translated from messages, which has no timestamp: the gateway's, in Unix seconds (the chat format's unit)
    expect(final.created).to.be.within(sentAt, Math.floor(Date.now() / 1000));
    const message = final.choices[0]!.message;
    expect(message.content).to.equal('Let me check.');
    expect(final.choices[0]!.finish_reason).to.equal('tool_calls');
    expect(message.tool_calls!.map((call) => call.type === 'function' && JSON.parse(call.function.arguments))).to.deep.equal([{ city: 'Paris' }, { city: 'Rome' }]);
    expect(final.usage).to.include({ prompt_tokens: 100, completion_tokens: 40 });
    const sent = harness.anthropic.lastRequest!.body as { system: unknown; max_tokens: number; model: string };
    expect(sent).to.deep.include({ max_tokens: 500, model: 'claude-sonnet-4-5' });
    expect(JSON.stringify(sent.system)).to.contain('be brief');
    // $3 / $15 per Mtok
    expect((await harness.settledMoney(orgId)).balance).to.equal(TEN_USD - (100n * 3_000n + 40n * 15_000n));
  });

  describe('errors surface as the SDK error classes, and cost nothing', () => {
    it('401 invalid_api_key', async () => {
      const error = await client('sk-gw-nope').chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
      expect(error).to.be.instanceOf(OpenAI.AuthenticationError);
      expect(error).to.include({ status: 401, code: 'invalid_api_key' });
      expect(error.headers.get('x-request-id')).to.match(/^gen-/);
    });

    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, unknown, number, string]> = [
      ['unknown model', { model: 'openai/gpt-9' }, {}, OpenAI.NotFoundError, 404, 'model_not_found'],
      ['embeddings model', { model: 'openai/text-embedding-3-small' }, {}, OpenAI.BadRequestError, 400, 'model_category_mismatch'],
      ['model outside the key list', { model: 'local/llama' }, { models: ['openai/gpt-4o-mini'] }, OpenAI.PermissionDeniedError, 403, 'model_not_allowed'],
      ['missing messages', { messages: undefined }, {}, OpenAI.BadRequestError, 400, 'invalid_request'],
      ['bad PII header', { headers: { 'x-pii-masking': 'maybe' } }, {}, OpenAI.BadRequestError, 400, 'invalid_pii_masking_header'],
      ['PII masking not enabled', { headers: { 'x-pii-masking': 'on' } }, {}, OpenAI.PermissionDeniedError, 403, 'pii_masking_not_enabled'],
    ];
    for (const [label, change, key, errorClass, status, code] of cases) {
      it(`${status} ${code} (${label})`, async () => {
        const { orgId, secret } = await harness.customer('10', key);
        const { headers, ...body } = change as { headers?: Record<string, string> };
        const error = await client(secret)
          .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], ...body } as never, { headers: headers ?? {} })
          .catch((e) => e);
        expect(error).to.be.instanceOf(errorClass as typeof OpenAI.APIError);
        expect(error).to.include({ status, code });
        expect(harness.openai.requests, 'nothing reached the provider').to.have.length(0);
        expect(await harness.settledMoney(orgId)).to.deep.equal({ balance: TEN_USD, reserved: 0n });
      });
    }

    it('400 invalid_json for a body that is not JSON', async () => {
      const { secret } = await harness.customer();
      const response = await fetch(`${harness.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: '{"model": ' });
      expect(response.status).to.equal(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).to.equal('invalid_json');
    });

    it('402 insufficient_funds, saying that a smaller max_tokens lowers the reserve', async () => {
      const { orgId, secret } = await harness.customer('0.001');
      const error = await client(secret).chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
      expect(error).to.include({ status: 402, code: 'insufficient_funds' });
      expect(error.message).to.contain('organization balance insufficient for this request').and.to.contain('max_tokens');
      // with a small cap the same request fits
      await client(secret).chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], max_tokens: 50 });
      expect((await harness.settledMoney(orgId)).balance).to.equal(parseUsd('0.001') - DEFAULT_COST);
    });

    it('402 key_limit_exceeded for a key daily limit', async () => {
      const { secret } = await harness.customer('10', { limits: { daily_usd: '0.001' } });
      const error = await client(secret).chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
      expect(error).to.include({ status: 402, code: 'key_limit_exceeded' });
      expect(error.message).to.match(/^402 spending limit of this API key for the day is exceeded/);
    });

    it('429 rate_limit_exceeded past the key requests per minute, with Retry-After', async () => {
      const { secret } = await harness.customer('10', { rpm: 2 });
      const openai = client(secret);
      for (let i = 0; i < 2; i++) await openai.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], max_tokens: 5 });
      const error = await openai.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], max_tokens: 5 }).catch((e) => e);
      expect(error).to.be.instanceOf(OpenAI.RateLimitError);
      expect(error.code).to.equal('rate_limit_exceeded');
      expect(Number(error.headers.get('retry-after'))).to.be.within(1, 60);
    });

    it("returns the provider's own error as it is, with Retry-After, and releases the money", async () => {
      const { orgId, secret } = await harness.customer();
      harness.openai.enqueue({ error: { status: 429, retryAfter: 7, body: { error: { message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' } } } });
      const error = await client(secret).chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
      expect(error).to.be.instanceOf(OpenAI.RateLimitError);
      expect(error.message).to.contain('slow down');
      expect(error.headers.get('retry-after')).to.equal('7');
      expect(error.headers.get('x-pii-masking')).to.equal('off');
      expect(error.headers.get('x-request-id')).to.match(/^gen-/);
      expect(await harness.settledMoney(orgId)).to.deep.equal({ balance: TEN_USD, reserved: 0n });
    });

    it('502 provider_error when the provider cannot be reached, and releases the money', async () => {
      const closed = await startGatewayHarness();
      try {
        const { orgId, secret } = await closed.customer();
        await closed.openai.close();
        const error = await new OpenAI({ apiKey: secret, baseURL: `${closed.gateway.url}/v1`, maxRetries: 0 })
          .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] })
          .catch((e) => e);
        expect(error).to.include({ status: 502, code: 'provider_error' });
        expect(await closed.settledMoney(orgId)).to.deep.equal({ balance: TEN_USD, reserved: 0n });
      } finally {
        await closed.gateway.dispose();
        await closed.anthropic.close();
      }
    });
  });

  it('settles a stream cut by the client for what the provider produced', async () => {
    const { orgId, secret } = await harness.customer();
    let release!: () => void;
    harness.openai.enqueue({ text: 'a b c d e f', deltas: 6, usage: null, holdLastEventUntil: new Promise<void>((resolve) => (release = resolve)) });
    const controller = new AbortController();
    const response = await fetch(`${harness.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], stream: true, max_tokens: 100 }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    expect(await harness.openai.lastRequest!.outcome, 'the provider call was aborted').to.equal('closed');
    release();
    const money = await harness.settledMoney(orgId);
    expect(money.reserved).to.equal(0n);
    expect(money.balance < TEN_USD, 'what was produced is charged').to.equal(true);
  });

  it('cuts off a stream whose key is revoked, with key_revoked as its last event', async () => {
    const { orgId, keyId, secret } = await harness.customer();
    let release!: () => void;
    harness.openai.enqueue({ text: 'a b c d', deltas: 4, holdLastEventUntil: new Promise<void>((resolve) => (release = resolve)) });
    const response = await fetch(`${harness.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], stream: true, max_tokens: 100 }),
    });
    const reader = response.body!.getReader();
    await reader.read();
    await harness.admin.ok('POST', `/keys/${keyId}/revoke`);
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    release();
    const frames = text.split('\n\n').filter(Boolean);
    const last = JSON.parse(frames.at(-1)!.replace(/^data: /, ''));
    expect(last.error).to.include({ code: 'key_revoked' });
    const money = await harness.settledMoney(orgId);
    expect(money.reserved).to.equal(0n);
  });
});
