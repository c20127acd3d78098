import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import { isJsonObject, tryParseJson } from '../../src/formats/json-value.js';
import type { SseEvent } from '../../src/formats/sse-event.js';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';
import { FAKE_ANTHROPIC_KEY } from '../support/test-gateway.js';
import { CLIENT_FORMATS, outcomeOf, postText, sdkFinal, streamViolations, textRequest, type ClientFormat } from '../support/text-format-client.js';

/**
 * What issue 7 asks of the three formats beyond the format pairs (format-pairs.test.ts), over HTTP against
 * the fake providers: prompt-cache blocks and whole-input usage on /v1/messages, version headers, reasoning
 * that ate the whole output cap, mid-stream provider failures, the exact 402 texts, and how stop sequences
 * and the output cap show in each format. Every request's money is checked, and the ledger at the end.
 */
const TEN_USD = 10_000_000_000n;
const PROVIDERS = [
  { format: 'chat', model: 'local/llama', fake: 'openai', price: { input: 100n, output: 200n } },
  { format: 'messages', model: 'anthropic/claude-sonnet-4-5', fake: 'anthropic', price: { input: 3_000n, output: 15_000n } },
  { format: 'responses', model: 'oairesp/gpt-4o-mini', fake: 'openai', price: { input: 150n, output: 600n } },
] as const;
type Provider = (typeof PROVIDERS)[number];

describe('format conformance end to end (issue 7)', function () {
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

  const anthropicSdk = (secret: string) => new Anthropic({ apiKey: secret, baseURL: harness.gateway.url, maxRetries: 0 });
  const charged = async (orgId: string) => {
    const money = await harness.settledMoney(orgId);
    expect(money.reserved, 'nothing left reserved').to.equal(0n);
    return TEN_USD - money.balance;
  };

  describe('prompt cache on /v1/messages', () => {
    it('passes cache_control on system blocks, content blocks and tools to an Anthropic model unchanged', async () => {
      const { secret } = await harness.customer();
      const body = {
        model: 'anthropic/claude-sonnet-4-5',
        max_tokens: 100,
        cache_control: { type: 'ephemeral' },
        system: [
          { type: 'text', text: 'You answer questions about the attached manual.', cache_control: { type: 'ephemeral', ttl: '1h' } },
          { type: 'text', text: 'Be brief.' },
        ],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'The manual: …', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'What is step 3?' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'Step 3 is calibration.', cache_control: { type: 'ephemeral', ttl: '5m' } }] },
          { role: 'user', content: 'And step 4?' },
        ],
        tools: [{ name: 'lookup', description: 'Look a step up', input_schema: { type: 'object', properties: { step: { type: 'integer' } } }, cache_control: { type: 'ephemeral' } }],
      };
      const answer = await postText(harness.gateway.url, 'messages', secret, body);
      expect(answer.status).to.equal(200);
      expect(harness.anthropic.lastRequest!.body).to.deep.equal({ ...body, model: 'claude-sonnet-4-5' });
    });

    for (const stream of [false, true]) {
      it(`shows the whole input as usage.input_tokens and charges cache reads and writes at their prices (messages provider, ${stream ? 'streaming' : 'not streaming'})`, async () => {
        const { orgId, secret } = await harness.customer();
        // Anthropic's own input_tokens excludes the cache: 10 uncached + 1000 read + 200 written = 1210 in all
        harness.anthropic.enqueue({ text: 'From the cache.', usage: { inputTokens: 10, cachedInputTokens: 1_000, cacheWriteInputTokens: 200, outputTokens: 20 } });
        const params = { model: 'anthropic/claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user' as const, content: 'hello' }] };
        const message = stream ? await anthropicSdk(secret).messages.stream(params).finalMessage() : await anthropicSdk(secret).messages.create(params);
        expect(message.usage).to.include({ input_tokens: 1_210, cache_read_input_tokens: 1_000, cache_creation_input_tokens: 200, output_tokens: 20 });
        // catalog: input $3, cache read $0.30, cache write $3.75, output $15 per Mtok
        expect(await charged(orgId)).to.equal(10n * 3_000n + 1_000n * 300n + 200n * 3_750n + 20n * 15_000n);
      });

      // openai/gpt-4o-mini prices cached input at $0.075 per Mtok; local/llama has no cached price, so its input price applies
      for (const { model, price } of [
        { model: 'openai/gpt-4o-mini', price: { input: 150n, cached: 75n, output: 600n } },
        { model: 'local/llama', price: { input: 100n, cached: 100n, output: 200n } },
      ]) {
        it(`shows the whole input as usage.input_tokens when a chat provider reports cached_tokens, and charges the catalog's cached price (${model}, ${stream ? 'streaming' : 'not streaming'})`, async () => {
          const { orgId, secret } = await harness.customer();
          // chat prompt_tokens already includes the 800 cached tokens
          harness.openai.enqueue({ text: 'From the cache.', usage: { inputTokens: 1_000, cachedInputTokens: 800, outputTokens: 10 } });
          const params = { model, max_tokens: 100, messages: [{ role: 'user' as const, content: 'hello' }] };
          const message = stream ? await anthropicSdk(secret).messages.stream(params).finalMessage() : await anthropicSdk(secret).messages.create(params);
          expect(harness.openai.lastRequest!.path).to.equal('/v1/chat/completions');
          expect(message.usage).to.include({ input_tokens: 1_000, cache_read_input_tokens: 800, output_tokens: 10 });
          expect(await charged(orgId)).to.equal(200n * price.input + 800n * price.cached + 10n * price.output);
        });
      }
    }
  });

  describe('version headers on /v1/messages (spec 4.2 and 9.2 name vendor-version but make no value, or its absence, an error)', () => {
    const variants: Array<[string, Record<string, string>]> = [
      ['anthropic-version: 2023-06-01', { 'anthropic-version': '2023-06-01' }],
      ['anthropic-version of another date', { 'anthropic-version': '2026-10-21' }],
      ['vendor-version: 2023-06-01', { 'vendor-version': '2023-06-01' }],
      ['no version header', {}],
    ];
    for (const [label, headers] of variants) {
      it(`accepts ${label}, and sends the provider its own version and key, never the client's`, async () => {
        const { orgId, secret } = await harness.customer();
        const answer = await postText(harness.gateway.url, 'messages', secret, textRequest('messages', 'anthropic/claude-sonnet-4-5', { stream: false }), headers);
        expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
        expect(answer.body).to.include({ type: 'message', model: 'anthropic/claude-sonnet-4-5' });
        const upstream = harness.anthropic.lastRequest!.headers;
        expect(upstream['anthropic-version']).to.equal('2023-06-01');
        expect(upstream['x-api-key']).to.equal(FAKE_ANTHROPIC_KEY);
        expect(upstream.authorization).to.equal(undefined);
        expect(upstream['vendor-version']).to.equal(undefined);
        expect(JSON.stringify(upstream)).not.to.contain(secret);
        // the fake's default usage: 12 in, 7 out
        expect(await charged(orgId)).to.equal(12n * 3_000n + 7n * 15_000n);
      });
    }

    it('serves the official SDK with an API key or an auth token (both sent as Bearer, with its own anthropic-version)', async () => {
      const { secret } = await harness.customer();
      const params = { model: 'anthropic/claude-sonnet-4-5', max_tokens: 50, messages: [{ role: 'user' as const, content: 'hello' }] };
      for (const client of [anthropicSdk(secret), new Anthropic({ authToken: secret, apiKey: null, baseURL: harness.gateway.url, maxRetries: 0 })]) {
        const message = await client.messages.create(params);
        expect(message.content).to.deep.equal([{ type: 'text', text: 'Hello from the fake provider.' }]);
        expect(harness.anthropic.lastRequest!.headers['anthropic-version']).to.equal('2023-06-01');
        expect(JSON.stringify(harness.anthropic.lastRequest!.headers)).not.to.contain(secret);
      }
    });
  });

  describe('reasoning', () => {
    for (const client of CLIENT_FORMATS) {
      for (const stream of [false, true]) {
        it(`${client} client, chat provider that spent the whole cap on reasoning (finish_reason length), ${stream ? 'streaming' : 'not streaming'}: no text, the cap is the stop reason`, async () => {
          const { orgId, secret } = await harness.customer();
          harness.openai.enqueue({ reasoning: 'Let me think this through carefully', text: '', finish: 'max_tokens', usage: { inputTokens: 20, outputTokens: 50, reasoningTokens: 50 } });
          const answer = await postText(harness.gateway.url, client, secret, textRequest(client, 'local/llama', { stream, maxTokens: 50 }));
          expect(answer.status).to.equal(200);
          const outcome = outcomeOf(client, stream ? await streamedFinal(client, answer.events!) : answer.body);
          expect(outcome.text).to.equal('');
          expect({ stop: outcome.stop, detail: outcome.detail, blocks: outcome.blocks }).to.deep.equal(
            {
              chat: { stop: 'length', detail: null, blocks: [] },
              messages: { stop: 'max_tokens', detail: null, blocks: ['thinking'] },
              responses: { stop: 'incomplete', detail: { reason: 'max_output_tokens' }, blocks: ['reasoning'] },
            }[client],
          );
          expect(await charged(orgId)).to.equal(20n * 100n + 50n * 200n);
        });
      }
    }

    for (const stream of [false, true]) {
      it(`passes thinking with its signature through messages ↔ messages unchanged, both ways (${stream ? 'streaming' : 'not streaming'})`, async () => {
        const { secret } = await harness.customer();
        harness.anthropic.enqueue({ reasoning: 'The user asked twice; answer again.', text: 'Again: 4.' });
        const history = [
          { role: 'user' as const, content: 'What is 2 + 2?' },
          { role: 'assistant' as const, content: [{ type: 'thinking' as const, thinking: 'Simple sum.', signature: 'c2lnbmF0dXJlLW9mLXRoZS1wcm92aWRlcg==' }, { type: 'text' as const, text: '4.' }] },
          { role: 'user' as const, content: 'Again?' },
        ];
        const params = { model: 'anthropic/claude-sonnet-4-5', max_tokens: 2_048, thinking: { type: 'enabled' as const, budget_tokens: 1_024 }, messages: history };
        const message = stream ? await anthropicSdk(secret).messages.stream(params).finalMessage() : await anthropicSdk(secret).messages.create(params);
        expect((harness.anthropic.lastRequest!.body as { messages: unknown }).messages).to.deep.equal(history);
        const signature = Buffer.from(`fake-signature:${'The user asked twice; answer again.'.length}`).toString('base64');
        expect(message.content.map((block) => (block.type === 'text' ? { type: block.type, text: block.text } : block))).to.deep.equal([
          { type: 'thinking', thinking: 'The user asked twice; answer again.', signature },
          { type: 'text', text: 'Again: 4.' },
        ]);
      });
    }
  });

  describe('mid-stream provider failures', () => {
    // events before the failure: the opening events and the first two words ("one", " two")
    const EVENTS_BEFORE: Record<Provider['format'], number> = { chat: 3, messages: 5, responses: 6 };
    for (const provider of PROVIDERS) {
      for (const client of CLIENT_FORMATS) {
        for (const kind of ['error event', 'lost connection'] as const) {
          it(`${client} client ← ${provider.format} provider, ${kind}: the format's error event ends a valid stream, the SDK reports it, what was received is charged`, async () => {
            const { orgId, secret } = await harness.customer();
            const after = EVENTS_BEFORE[provider.format];
            harness[provider.fake].enqueue({ text: 'one two three four five six', usage: { inputTokens: 20, outputTokens: 12 }, ...(kind === 'error event' ? { errorEventAfter: after } : { failAfterEvents: after }) });
            const answer = await postText(harness.gateway.url, client, secret, textRequest(client, provider.model, { stream: true, maxTokens: 100 }));
            const events = answer.events!;
            expect(answer.status).to.equal(200);
            expect(streamViolations(client, events)).to.deep.equal([]);
            expect(receivedText(client, events)).to.equal('one two');
            // Spec 7.3.2: in pass-through a provider's own error event comes as it is; otherwise the gateway's
            // error in the client's format, server-side whatever the provider called it (spec 7.1).
            const own = kind === 'error event' && client === provider.format;
            const error = terminalError(client, events.at(-1)!, own);
            expect(error.message).to.be.a('string').and.not.equal('');
            if (client !== 'responses') expect(error.type).to.equal(own ? { chat: 'server_error', messages: 'overloaded_error' }[client] : 'api_error');
            // what a user of the official SDK sees: an error, not a shorter answer
            const seen: { final?: unknown; thrown?: { message?: unknown } } = await sdkFinal(client, events).then(
              (final) => ({ final: final.value }),
              (reason: { message?: unknown }) => ({ thrown: reason }),
            );
            if (client === 'responses' && !own) expect(seen.final).to.deep.include({ status: 'failed', error: { code: 'server_error', message: error.message } });
            else expect(String(seen.thrown?.message), 'the SDK throws').to.contain(error.message);
            // settled for the input and the two words received: more than nothing, far less than the reserve
            const cost = await charged(orgId);
            expect(cost >= provider.price.input + 2n * provider.price.output, `charged ${cost}`).to.equal(true);
            if (provider.format === 'messages') expect(cost > 20n * provider.price.input + 1n * provider.price.output, 'the received words count, not only message_start usage').to.equal(true);
            expect(cost < 100n * provider.price.output).to.equal(true);
          });
        }
      }
    }
  });

  describe('402 texts (spec 7.3.1)', () => {
    const MESSAGES_402: Array<[string, { credits: string; key?: Record<string, unknown>; organization?: Record<string, unknown> }, string]> = [
      ['insufficient balance', { credits: '0.000001' }, 'organization balance insufficient for this request'],
      ['a key daily limit', { credits: '10', key: { limits: { daily_usd: '0.001' } } }, 'spending limit of this API key for the day is exceeded'],
      ['a key monthly limit by model', { credits: '10', key: { limits: { by_model: { 'anthropic/claude-sonnet-4-5': { monthly_usd: '0.001' } } } } }, 'spending limit of this API key for the month is exceeded for model anthropic/claude-sonnet-4-5'],
      ['a key daily limit by type', { credits: '10', key: { limits: { by_type: { text: { daily_usd: '0.001' } } } } }, 'spending limit of this API key for the day is exceeded for text generation'],
      ['an organization daily limit', { credits: '10', organization: { spend_limits: { daily_usd: '0.001' } } }, 'spending limit of the organization for the day is exceeded'],
    ];
    for (const [label, setup, message] of MESSAGES_402) {
      it(`/v1/messages, ${label}: the exact text in the messages error body, no cap hint, nothing charged`, async () => {
        const { orgId, secret } = await harness.admin.organizationWithKey(setup);
        const before = await harness.settledMoney(orgId);
        const answer = await postText(harness.gateway.url, 'messages', secret, textRequest('messages', 'anthropic/claude-sonnet-4-5', { stream: false, maxTokens: 1_000 }));
        expect(answer.status).to.equal(402);
        expect(answer.body).to.deep.equal({ type: 'error', error: { type: 'insufficient_quota_error', message } });
        expect(harness.anthropic.requests).to.have.length(0);
        expect(await harness.settledMoney(orgId)).to.deep.equal(before);
      });
    }

    const HINTS: Record<'chat' | 'responses', string> = {
      chat: 'a smaller max_tokens or max_completion_tokens lowers the reserve',
      responses: 'a smaller max_output_tokens lowers the reserve',
    };
    for (const client of ['chat', 'responses'] as const) {
      for (const [label, setup, message, code] of [
        ['insufficient balance', { credits: '0.000001' }, 'organization balance insufficient for this request', 'insufficient_funds'],
        ['a key daily limit', { credits: '10', key: { limits: { daily_usd: '0.001' } } }, 'spending limit of this API key for the day is exceeded', 'key_limit_exceeded'],
      ] as const) {
        it(`${client === 'chat' ? '/v1/chat/completions' : '/v1/responses'}, ${label}: the same text with the reserve and the cap hint appended`, async () => {
          const { secret } = await harness.admin.organizationWithKey(setup);
          const answer = await postText(harness.gateway.url, client, secret, textRequest(client, 'anthropic/claude-sonnet-4-5', { stream: false, maxTokens: 1_000 }));
          expect(answer.status).to.equal(402);
          expect(answer.body.error).to.include({ type: 'insufficient_quota_error', code });
          const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          expect(answer.body.error.message).to.match(new RegExp(`^${escaped(message)} \\(this request reserves 0\\.0\\d+ USD; ${escaped(HINTS[client])}\\)$`));
        });
      }
    }
  });

  describe('stop sequences and the output cap', () => {
    for (const provider of PROVIDERS) {
      for (const client of CLIENT_FORMATS) {
        for (const finish of ['stop_sequence', 'max_tokens'] as const) {
          for (const stream of [false, true]) {
            it(`${client} client ← ${provider.format} provider, ${finish === 'stop_sequence' ? 'stop sequence matched' : 'output cap reached'}, ${stream ? 'streaming' : 'not streaming'}`, async () => {
              const { orgId, secret } = await harness.customer();
              harness[provider.fake].enqueue({ text: 'Counting: one, two', finish, stopSequence: '###', usage: { inputTokens: 15, outputTokens: 9 } });
              const request = textRequest(client, provider.model, { stream, maxTokens: 9, ...(client === 'responses' ? {} : { stop: ['###'] }) });
              const answer = await postText(harness.gateway.url, client, secret, request);
              expect(answer.status).to.equal(200);
              if (stream) expect(streamViolations(client, answer.events!)).to.deep.equal([]);
              const outcome = outcomeOf(client, stream ? await streamedFinal(client, answer.events!) : answer.body);
              expect(outcome.text).to.equal('Counting: one, two');
              expect({ stop: outcome.stop, detail: outcome.detail }).to.deep.equal(expectedStop(client, provider.format, finish));
              if (client !== 'responses') expect(stopSentUpstream(provider.format, harness[provider.fake].lastRequest!.body), 'the stop sequences reach the provider').to.deep.equal(['###']);
              expect(await charged(orgId)).to.equal(15n * provider.price.input + 9n * provider.price.output);
            });
          }
        }
      }
    }
  });
});

/** wire-formats.md 7.1; only a messages provider says which sequence matched (docs/translation.md). */
function expectedStop(client: ClientFormat, provider: Provider['format'], finish: 'stop_sequence' | 'max_tokens'): { stop: string; detail: unknown } {
  if (finish === 'max_tokens') {
    return { chat: { stop: 'length', detail: null }, messages: { stop: 'max_tokens', detail: null }, responses: { stop: 'incomplete', detail: { reason: 'max_output_tokens' } } }[client];
  }
  if (client === 'messages') return provider === 'messages' ? { stop: 'stop_sequence', detail: '###' } : { stop: 'end_turn', detail: null };
  return client === 'chat' ? { stop: 'stop', detail: null } : { stop: 'completed', detail: null };
}

/** The responses format has no stop sequences: the translator drops them (docs/translation.md). */
function stopSentUpstream(provider: Provider['format'], body: unknown): unknown {
  const record = isJsonObject(body) ? body : {};
  return provider === 'chat' ? record.stop : provider === 'messages' ? record.stop_sequences : ['###'];
}

/** What the official SDK's stream helper makes of the events (a stream that passes the validator first). */
async function streamedFinal(client: ClientFormat, events: readonly SseEvent[]): Promise<unknown> {
  expect(streamViolations(client, events)).to.deep.equal([]);
  return (await sdkFinal(client, events)).value;
}

/** The text deltas a client received, joined. */
function receivedText(client: ClientFormat, events: readonly SseEvent[]): string {
  let text = '';
  for (const event of events) {
    const payload = tryParseJson(event.data);
    if (!isJsonObject(payload)) continue;
    if (client === 'chat') {
      const choice = Array.isArray(payload.choices) && isJsonObject(payload.choices[0]) ? payload.choices[0] : undefined;
      const delta = choice && isJsonObject(choice.delta) ? choice.delta : {};
      if (typeof delta.content === 'string') text += delta.content;
    } else if (client === 'messages') {
      const delta = isJsonObject(payload.delta) ? payload.delta : {};
      if (delta.type === 'text_delta' && typeof delta.text === 'string') text += delta.text;
    } else if (payload.type === 'response.output_text.delta' && typeof payload.delta === 'string') {
      text += payload.delta;
    }
  }
  return text;
}

/**
 * The error of the stream's last event, in the shape the client's format gives it (wire-formats.md 1.4, 2.3,
 * 3.3): a chat `{"error":…}` chunk, a messages `event: error`, a responses `response.failed` (or, passed
 * through from a responses provider, its flat `error` event).
 */
function terminalError(client: ClientFormat, last: SseEvent, providerOwn: boolean): { type: unknown; message: unknown } {
  const payload = tryParseJson(last.data);
  expect(isJsonObject(payload), last.data).to.equal(true);
  const body = payload as Record<string, any>;
  switch (client) {
    case 'chat':
      expect(last.event).to.equal(undefined);
      expect(body.error).to.include.keys('type', 'code', 'message');
      return body.error;
    case 'messages':
      expect(last.event).to.equal('error');
      expect(body.type).to.equal('error');
      expect(Object.keys(body.error).sort()).to.deep.equal(['message', 'type']);
      return body.error;
    case 'responses':
      if (providerOwn) {
        expect(last.event).to.equal('error');
        expect(body).to.include.keys('code', 'message');
        return { type: undefined, message: body.message };
      }
      expect(last.event).to.equal('response.failed');
      expect(body.response.status).to.equal('failed');
      expect(body.response.error).to.include.keys('code', 'message');
      return { type: undefined, message: body.response.error.message };
  }
}
