import { expect } from 'chai';
import { createServer } from 'node:net';
import type { SseEvent } from '../../../src/formats/sse-event.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import type { ProviderBodyResponse, ProviderResponse, ProviderStreamResponse } from '../../../src/providers/provider-client.js';
import { ProviderStreamError } from '../../../src/providers/provider-stream-error.js';
import { UndiciProviderClient } from '../../../src/providers/undici-provider-client.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../../ops/fake-providers/fake-anthropic-provider.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../../ops/fake-providers/fake-openai-provider.js';
import { gate, testProvider } from './test-provider.js';

function asBody(response: ProviderResponse): ProviderBodyResponse {
  if (response.type !== 'body') throw new Error(`expected a body, got a ${response.type}`);
  return response;
}

function asStream(response: ProviderResponse): ProviderStreamResponse {
  if (response.type !== 'stream') throw new Error(`expected a stream, got a ${response.type} (${response.status})`);
  return response;
}

async function collect(events: AsyncIterable<SseEvent>): Promise<SseEvent[]> {
  const all: SseEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const chatBody = (extra: Record<string, unknown> = {}): string => JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], ...extra });
const messagesBody = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], ...extra });

describe('UndiciProviderClient against the fake providers', () => {
  let openai: FakeOpenAi;
  let anthropic: FakeAnthropic;
  let client: UndiciProviderClient;

  before(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
  });
  beforeEach(() => {
    openai.reset();
    anthropic.reset();
    client = new UndiciProviderClient();
  });
  afterEach(async () => {
    await client.close();
  });
  after(async () => {
    await openai.close();
    await anthropic.close();
  });

  describe('JSON answers and what is sent', () => {
    it('sends the body byte for byte with Bearer auth and returns the whole JSON answer with forwardable headers', async () => {
      const provider = testProvider('openai', openai.url, { apiKey: 'sk-test' });
      const body = chatBody({ unknown_field: { kept: true } });
      const response = asBody(await client.call({ provider, path: '/chat/completions', body }));
      expect(response.status).to.equal(200);
      expect(response.headers.contentType).to.equal('application/json');
      expect(response.headers.requestId).to.match(/^req_fake/);
      const answer = JSON.parse(response.body.toString()) as { object: string; model: string; choices: Array<{ message: { content: string } }> };
      expect(answer.object).to.equal('chat.completion');
      expect(answer.model).to.equal('gpt-test');
      const received = openai.lastRequest!;
      expect(received.method).to.equal('POST');
      expect(received.path).to.equal('/v1/chat/completions');
      expect(received.rawBody.toString()).to.equal(body);
      expect(received.headers.authorization).to.equal('Bearer sk-test');
      expect(received.headers['content-type']).to.equal('application/json');
    });

    it('never forwards the caller’s credentials, and sends no Authorization for a keyless compatible server', async () => {
      const provider = testProvider('openai-compatible', openai.url);
      await client.call({ provider, path: '/chat/completions', body: chatBody(), headers: { Authorization: 'Bearer gateway-key', 'x-api-key': 'gateway-key', 'x-trace': '1' } });
      const { headers } = openai.lastRequest!;
      expect(headers.authorization).to.equal(undefined);
      expect(headers['x-api-key']).to.equal(undefined);
      expect(headers['x-trace']).to.equal('1');
    });

    it('authenticates Anthropic with x-api-key and anthropic-version, keeping the caller’s anthropic-beta', async () => {
      const provider = testProvider('anthropic', anthropic.url, { apiKey: 'ant-key' });
      const response = asBody(await client.call({ provider, path: '/v1/messages', body: messagesBody(), headers: { 'anthropic-beta': 'prompt-caching-2024-07-31' } }));
      expect(response.status).to.equal(200);
      expect(response.headers.requestId).to.match(/^req_fake/);
      const { headers } = anthropic.lastRequest!;
      expect(headers['x-api-key']).to.equal('ant-key');
      expect(headers['anthropic-version']).to.equal('2023-06-01');
      expect(headers['anthropic-beta']).to.equal('prompt-caching-2024-07-31');
      expect(headers.authorization).to.equal(undefined);
    });

    it('sends a multipart body as given, with its boundary', async () => {
      const form = new FormData();
      form.set('model', 'whisper-1');
      form.set('file', new Blob([Buffer.alloc(2048, 1)], { type: 'audio/wav' }), 'speech.wav');
      const encoded = new Request('http://x.invalid/', { method: 'POST', body: form });
      const body = Buffer.from(await encoded.arrayBuffer());
      const provider = testProvider('openai', openai.url, { apiKey: 'sk-test' });
      const response = asBody(await client.call({ provider, path: '/audio/transcriptions', body, contentType: encoded.headers.get('content-type')! }));
      expect(response.status).to.equal(200);
      expect(JSON.parse(response.body.toString())).to.have.nested.property('usage.type', 'duration');
      expect(openai.lastRequest!.body).to.deep.include({ model: 'whisper-1' }).and.to.have.property('file').that.deep.includes({ filename: 'speech.wav', type: 'audio/wav', size: 2048 });
    });

    it('GETs a video job and its file', async () => {
      const provider = testProvider('openai', openai.url);
      const created = asBody(await client.call({ provider, path: '/videos', body: JSON.stringify({ model: 'sora-2', prompt: 'a cat', seconds: '4' }) }));
      const { id } = JSON.parse(created.body.toString()) as { id: string };
      openai.videos.complete(id);
      const job = asBody(await client.call({ provider, path: `/videos/${id}` }));
      expect(JSON.parse(job.body.toString())).to.include({ id, status: 'completed' });
      expect(openai.lastRequest!.method).to.equal('GET');
      const file = asBody(await client.call({ provider, path: `/videos/${id}/content` }));
      expect(file.headers.contentType).to.equal('video/mp4');
      expect(file.body.subarray(4, 8).toString()).to.equal('ftyp');
    });
  });

  describe('streams', () => {
    it('yields chat chunks as they arrive: the first before the fake sends the last', async () => {
      const held = gate();
      openai.enqueue({ text: 'one two three', holdLastEventUntil: held.promise });
      const provider = testProvider('openai', openai.url);
      const response = asStream(await client.call({ provider, path: '/chat/completions', body: chatBody({ stream: true }), stream: true, headers: { accept: 'text/event-stream' } }));
      expect(response.status).to.equal(200);
      expect(response.headers.contentType).to.match(/^text\/event-stream/);
      const iterator = response.events[Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(first.done).to.equal(false);
      expect(JSON.parse(first.value!.data)).to.have.nested.property('choices[0].delta.role', 'assistant');
      held.open();
      const rest: SseEvent[] = [];
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
      expect(rest.at(-1)).to.deep.equal({ data: '[DONE]' });
      const text = rest
        .slice(0, -1)
        .map((event) => (JSON.parse(event.data) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '')
        .join('');
      expect(text).to.equal('one two three');
      expect(response.events.eventsReceived).to.equal(rest.length + 1);
    });

    it('delivers every event in order to a consumer slower than the provider (the upstream is paused, not buffered without bound)', async () => {
      const text = 'abcdefghij'.repeat(300);
      openai.enqueue({ text, deltas: 1500 });
      const provider = testProvider('openai', openai.url);
      const response = asStream(await client.call({ provider, path: '/chat/completions', body: chatBody({ stream: true }), stream: true }));
      let received = '';
      let count = 0;
      for await (const event of response.events) {
        if (++count % 100 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
        if (event.data === '[DONE]') continue;
        received += (JSON.parse(event.data) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '';
      }
      expect(received).to.equal(text);
      expect(count).to.equal(1503);
    });

    it('yields named Anthropic events from message_start to message_stop', async () => {
      const provider = testProvider('anthropic', anthropic.url, { apiKey: 'k' });
      const response = asStream(await client.call({ provider, path: '/v1/messages', body: messagesBody({ stream: true }), stream: true }));
      const names = (await collect(response.events)).map((event) => event.event);
      expect(names[0]).to.equal('message_start');
      expect(names.at(-2)).to.equal('message_delta');
      expect(names.at(-1)).to.equal('message_stop');
      expect(response.headers.requestId).to.match(/^req_fake/);
    });

    it('returns a 2xx JSON answer as a body when no stream was asked, even for an event stream', async () => {
      const provider = testProvider('openai', openai.url);
      const response = await client.call({ provider, path: '/chat/completions', body: chatBody({ stream: true }) });
      expect(response.type).to.equal('body');
      expect(asBody(response).body.toString()).to.match(/^data: /);
    });

    it('throws ProviderStreamError after the events received when the provider dies mid-stream', async () => {
      openai.enqueue({ text: 'a b c d e f', failAfterEvents: 3 });
      const provider = testProvider('openai', openai.url);
      const response = asStream(await client.call({ provider, path: '/chat/completions', body: chatBody({ stream: true }), stream: true }));
      const received: SseEvent[] = [];
      const error = await rejection(
        (async () => {
          for await (const event of response.events) received.push(event);
        })(),
      );
      expect(error).to.be.instanceOf(ProviderStreamError);
      expect(error).to.include({ failure: 'connection', eventsReceived: 3 });
      expect(received).to.have.length(3);
    });

    it('ends with ProviderStreamError(timeout) when the whole call outlives the provider timeout', async () => {
      openai.enqueue({ text: 'slow stream here', eventDelayMs: 150 });
      const provider = testProvider('openai', openai.url, { timeoutMs: 300 });
      const response = asStream(await client.call({ provider, path: '/chat/completions', body: chatBody({ stream: true }), stream: true }));
      const error = await rejection(collect(response.events));
      expect(error).to.be.instanceOf(ProviderStreamError);
      expect((error as ProviderStreamError).failure).to.equal('timeout');
      expect((error as ProviderStreamError).eventsReceived).to.be.greaterThan(0);
      expect(await openai.lastRequest!.outcome).to.equal('closed');
    });

    it('releases the upstream request when the consumer stops early', async () => {
      openai.enqueue({ text: 'many words in this answer', eventDelayMs: 20 });
      const provider = testProvider('openai', openai.url);
      const response = asStream(await client.call({ provider, path: '/chat/completions', body: chatBody({ stream: true }), stream: true }));
      for await (const event of response.events) {
        expect(event.data).to.be.a('string');
        break;
      }
      expect(await openai.lastRequest!.outcome).to.equal('closed');
    });

    it('cancel() before iterating closes the upstream request too', async () => {
      openai.enqueue({ text: 'x y z', eventDelayMs: 50 });
      const provider = testProvider('openai', openai.url);
      const response = asStream(await client.call({ provider, path: '/chat/completions', body: chatBody({ stream: true }), stream: true }));
      response.events.cancel();
      expect(await openai.lastRequest!.outcome).to.equal('closed');
    });
  });

  describe('provider errors are answers, returned unchanged', () => {
    it('returns status, body bytes and Retry-After of an OpenAI 429', async () => {
      const body = { error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } };
      openai.enqueue({ error: { status: 429, body, retryAfter: 7 } });
      const provider = testProvider('openai', openai.url);
      const response = asBody(await client.call({ provider, path: '/chat/completions', body: chatBody() }));
      expect(response.status).to.equal(429);
      expect(response.headers.retryAfter).to.equal('7');
      expect(response.body.toString()).to.equal(JSON.stringify(body));
    });

    it('returns a non-2xx answer as a body even when a stream was asked', async () => {
      anthropic.enqueue({ error: { status: 529, retryAfter: 2 } });
      const provider = testProvider('anthropic', anthropic.url);
      const response = asBody(await client.call({ provider, path: '/v1/messages', body: messagesBody({ stream: true }), stream: true }));
      expect(response.status).to.equal(529);
      expect(response.headers.retryAfter).to.equal('2');
      expect(JSON.parse(response.body.toString())).to.deep.include({ type: 'error', error: { type: 'overloaded_error', message: 'scripted error 529' } });
    });

    it('returns a plain-text error body as it is', async () => {
      openai.enqueue({ error: { status: 502, body: '<html>bad gateway</html>' } });
      const provider = testProvider('openai-compatible', openai.url);
      const response = asBody(await client.call({ provider, path: '/chat/completions', body: chatBody(), stream: true }));
      expect(response.status).to.equal(502);
      expect(response.body.toString()).to.equal('<html>bad gateway</html>');
    });
  });

  describe('failures of our own', () => {
    it('connection refused → GatewayError provider_error (502)', async () => {
      const provider = testProvider('openai', `http://127.0.0.1:${await closedPort()}/v1`);
      const error = await rejection(client.call({ provider, path: '/chat/completions', body: chatBody() }));
      expect(error).to.be.instanceOf(GatewayError);
      expect(error).to.include({ code: 'provider_error', status: 502 });
      expect((error as Error).message).to.contain('ECONNREFUSED');
    });

    it('a connection reset before any answer → GatewayError provider_error', async () => {
      const resetting = createServer((socket) => socket.resetAndDestroy());
      await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
      try {
        const provider = testProvider('openai', `http://127.0.0.1:${(resetting.address() as { port: number }).port}/v1`);
        const error = await rejection(client.call({ provider, path: '/chat/completions', body: chatBody() }));
        expect(error).to.include({ code: 'provider_error', status: 502 });
      } finally {
        await new Promise<void>((resolve) => resetting.close(() => resolve()));
      }
    });

    it('an unknown host → GatewayError provider_error', async () => {
      const provider = testProvider('openai', 'http://no-such-host.invalid/v1');
      const error = await rejection(client.call({ provider, path: '/chat/completions', body: chatBody() }));
      expect(error).to.include({ code: 'provider_error', status: 502 });
    });

    it('no answer within the provider timeout → service_unavailable (503) with Retry-After 1, and the upstream request is closed', async () => {
      openai.enqueue({ firstByteDelayMs: 5_000 });
      const provider = testProvider('openai', openai.url, { timeoutMs: 200 });
      const started = Date.now();
      const error = await rejection(client.call({ provider, path: '/chat/completions', body: chatBody() }));
      expect(Date.now() - started).to.be.lessThan(2_000);
      expect(error).to.be.instanceOf(GatewayError);
      expect(error).to.include({ code: 'service_unavailable', status: 503, retryAfterSeconds: 1 });
      expect(await openai.lastRequest!.outcome).to.equal('closed');
    });

    it('a caller abort before the answer rejects with the signal’s reason and closes the upstream request', async () => {
      openai.enqueue({ firstByteDelayMs: 5_000 });
      const provider = testProvider('openai', openai.url);
      const controller = new AbortController();
      const pending = client.call({ provider, path: '/chat/completions', body: chatBody(), signal: controller.signal });
      await waitFor(() => openai.requests.length === 1);
      const reason = new Error('client went away');
      controller.abort(reason);
      expect(await rejection(pending)).to.equal(reason);
      expect(await openai.lastRequest!.outcome).to.equal('closed');
    });

    it('a caller abort mid-stream ends the events with ProviderStreamError(aborted) and closes the upstream request', async () => {
      openai.enqueue({ text: 'a b c d e f g h', eventDelayMs: 30 });
      const provider = testProvider('openai', openai.url);
      const controller = new AbortController();
      const response = asStream(await client.call({ provider, path: '/chat/completions', body: chatBody({ stream: true }), stream: true, signal: controller.signal }));
      let seen = 0;
      const error = await rejection(
        (async () => {
          for await (const event of response.events) {
            expect(event.data).to.be.a('string');
            if (++seen === 2) controller.abort();
          }
        })(),
      );
      expect(error).to.be.instanceOf(ProviderStreamError);
      expect(error).to.include({ failure: 'aborted', eventsReceived: 2 });
      expect(await openai.lastRequest!.outcome).to.equal('closed');
    });

    it('an already aborted signal rejects without calling the provider', async () => {
      const provider = testProvider('openai', openai.url);
      const error = await rejection(client.call({ provider, path: '/chat/completions', body: chatBody(), signal: AbortSignal.abort() }));
      expect(error).to.have.property('name', 'AbortError');
      expect(openai.requests).to.have.length(0);
    });

    it('after close(), calls fail with service_unavailable', async () => {
      const provider = testProvider('openai', openai.url);
      await client.call({ provider, path: '/chat/completions', body: chatBody() });
      await client.close();
      const error = await rejection(client.call({ provider, path: '/chat/completions', body: chatBody() }));
      expect(error).to.include({ code: 'service_unavailable' });
    });
  });

  describe('connection pooling', () => {
    it('reuses one keep-alive connection for many sequential calls, JSON and streamed', async () => {
      const provider = testProvider('openai', openai.url);
      for (let index = 0; index < 30; index++) {
        const stream = index % 2 === 1;
        const response = await client.call({ provider, path: '/chat/completions', body: chatBody({ stream }), stream });
        if (response.type === 'stream') await collect(response.events);
      }
      expect(openai.requests).to.have.length(30);
      // undici frees a socket for the pool a tick after the body's 'end', so a call made in that same
      // tick takes a second socket: back-to-back calls alternate between two, never more
      expect(openai.connectionsOpened).to.be.at.most(2);
      expect(new Set(openai.requests.map((request) => request.connection)).size).to.be.at.most(2);
    });

    it('opens at most one connection per concurrent call, and shares the pool across providers on one origin', async () => {
      const chat = testProvider('openai', openai.url);
      const compatible = testProvider('openai-compatible', openai.url);
      for (let round = 0; round < 3; round++) {
        await Promise.all(Array.from({ length: 8 }, (_, index) => client.call({ provider: index % 2 ? chat : compatible, path: '/chat/completions', body: chatBody() })));
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(openai.requests).to.have.length(24);
      expect(openai.connectionsOpened).to.be.at.most(8);
    });
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
