import { expect } from 'chai';
import type { SseEvent } from '../../../src/formats/sse-event.js';
import { SseParser } from '../../../src/providers/sse-parser.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../../ops/fake-providers/fake-anthropic-provider.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../../ops/fake-providers/fake-openai-provider.js';
import { DEFAULT_TEXT, DEFAULT_USAGE, TINY_PNG_BASE64 } from '../../../ops/fake-providers/scripted-answer.js';

// wire JSON read loosely: these tests assert on shapes the SDK tests also check
type Json = Record<string, any>;

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers }, body: JSON.stringify(body) });
}

async function events(response: Response): Promise<SseEvent[]> {
  const parser = new SseParser();
  const all: SseEvent[] = [];
  parser.push(new Uint8Array(await response.arrayBuffer()), (event) => all.push(event));
  parser.end((event) => all.push(event));
  return all;
}

const payloads = (list: SseEvent[]): Json[] => list.filter((event) => event.data !== '[DONE]').map((event) => JSON.parse(event.data) as Json);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** peer-pitfalls.md: one message_start, blocks opened and closed once each in order, message_delta before message_stop. */
function checkMessagesStream(list: SseEvent[]): void {
  const names = list.map((event) => event.event);
  expect(names.filter((name) => name === 'message_start')).to.have.length(1);
  expect(names[0]).to.equal('message_start');
  expect(names.at(-1)).to.equal('message_stop');
  expect(names.at(-2)).to.equal('message_delta');
  let open: number | undefined;
  let next = 0;
  for (const event of list) {
    const data = JSON.parse(event.data) as Json;
    expect(data.type).to.equal(event.event);
    if (data.type === 'content_block_start') {
      expect(open).to.equal(undefined);
      expect(data.index).to.equal(next);
      open = data.index as number;
    } else if (data.type === 'content_block_delta') expect(data.index).to.equal(open);
    else if (data.type === 'content_block_stop') {
      expect(data.index).to.equal(open);
      open = undefined;
      next++;
    }
  }
  expect(open).to.equal(undefined);
}

describe('fake providers', () => {
  let openai: FakeOpenAi;
  let anthropic: FakeAnthropic;
  before(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
  });
  beforeEach(() => {
    openai.reset();
    anthropic.reset();
  });
  after(async () => {
    await openai.close();
    await anthropic.close();
  });

  describe('fake OpenAI chat completions', () => {
    const chat = (body: Json): Promise<Response> => post(`${openai.url}/chat/completions`, { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], ...body });

    it('records what it received', async () => {
      await chat({ stream: true, stream_options: { include_usage: true } });
      const request = openai.lastRequest!;
      expect(request).to.deep.include({ method: 'POST', path: '/v1/chat/completions' });
      expect(request.body).to.deep.include({ model: 'gpt-test', stream_options: { include_usage: true } });
      expect(await request.outcome).to.equal('finished');
    });

    it('adds the usage chunk, and usage: null on the other chunks, only with include_usage', async () => {
      const without = payloads(await events(await chat({ stream: true })));
      expect(without.every((chunk) => !('usage' in chunk))).to.equal(true);
      const withUsage = payloads(await events(await chat({ stream: true, stream_options: { include_usage: true } })));
      const last = withUsage.at(-1)!;
      expect(last.choices).to.deep.equal([]);
      expect(last.usage).to.include({ prompt_tokens: DEFAULT_USAGE.inputTokens, completion_tokens: DEFAULT_USAGE.outputTokens });
      expect(withUsage.slice(0, -1).every((chunk) => chunk.usage === null)).to.equal(true);
      expect(withUsage.at(-2)!.choices[0].finish_reason).to.equal('stop');
    });

    it('sends no usage anywhere when scripted with usage: null', async () => {
      openai.enqueue({ usage: null }, { usage: null });
      const chunks = payloads(await events(await chat({ stream: true, stream_options: { include_usage: true } })));
      expect(chunks.some((chunk) => chunk.usage)).to.equal(false);
      expect(await (await chat({})).json()).not.to.have.property('usage');
    });

    it('splits text into the scripted number of deltas and maps finish reasons', async () => {
      openai.enqueue({ text: 'abcdefgh', deltas: 4, finish: 'max_tokens' });
      const chunks = payloads(await events(await chat({ stream: true })));
      expect(chunks.map((chunk) => chunk.choices[0].delta.content).filter((text) => text)).to.deep.equal(['ab', 'cd', 'ef', 'gh']);
      expect(chunks.at(-1)!.choices[0].finish_reason).to.equal('length');
    });

    it('answers image modalities with data URLs in message.images', async () => {
      const answer = (await (await chat({ modalities: ['image', 'text'] })).json()) as Json;
      expect(answer.choices[0].message.images).to.deep.equal([{ type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` }, index: 0 }]);
    });

    it('sends the error object as a data event for errorEventAfter', async () => {
      openai.enqueue({ errorEventAfter: 2 });
      const list = await events(await chat({ stream: true }));
      expect(list).to.have.length(3);
      expect(JSON.parse(list[2]!.data)).to.have.nested.property('error.type', 'server_error');
    });
  });

  describe('fake OpenAI responses', () => {
    it('streams numbered events ending with response.completed, or response.incomplete at max tokens', async () => {
      const list = await events(await post(`${openai.url}/responses`, { model: 'gpt-test', input: 'hi', stream: true }));
      const data = payloads(list);
      expect(data.map((event) => event.sequence_number)).to.deep.equal(data.map((_, index) => index));
      expect(list.every((event, index) => event.event === data[index]!.type)).to.equal(true);
      expect(data[0]!.type).to.equal('response.created');
      expect(data.at(-1)!.type).to.equal('response.completed');
      expect(data.at(-1)!.response.usage).to.include({ input_tokens: 12, output_tokens: 7, total_tokens: 19 });
      expect(data.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta).join('')).to.equal(DEFAULT_TEXT);

      openai.enqueue({ finish: 'max_tokens' });
      const cut = payloads(await events(await post(`${openai.url}/responses`, { model: 'gpt-test', input: 'hi', stream: true })));
      expect(cut.at(-1)).to.deep.include({ type: 'response.incomplete' });
      expect(cut.at(-1)!.response.incomplete_details).to.deep.equal({ reason: 'max_output_tokens' });
    });
  });

  describe('fake OpenAI side APIs', () => {
    it('answers embeddings as floats or base64 float32', async () => {
      const floats = (await (await post(`${openai.url}/embeddings`, { model: 'e', input: 'a', dimensions: 3 })).json()) as Json;
      expect(floats.data[0].embedding).to.have.length(3);
      const base64 = (await (await post(`${openai.url}/embeddings`, { model: 'e', input: 'a', dimensions: 3, encoding_format: 'base64' })).json()) as Json;
      const decoded = new Float32Array(Uint8Array.from(Buffer.from(base64.data[0].embedding as string, 'base64')).buffer);
      expect([...decoded].map((value) => Math.round(value * 1e4) / 1e4)).to.deep.equal(floats.data[0].embedding);
    });

    it('answers images with n base64 images, and without usage when scripted so', async () => {
      openai.enqueue({ path: '/v1/images/generations', usage: null });
      const answer = (await (await post(`${openai.url}/images/generations`, { model: 'i', prompt: 'p', n: 3 })).json()) as Json;
      expect(answer.data).to.have.length(3);
      expect(answer).not.to.have.property('usage');
    });

    it('answers transcriptions in the requested response_format', async () => {
      const form = new FormData();
      form.set('model', 'whisper-1');
      form.set('response_format', 'text');
      form.set('file', new Blob([Buffer.alloc(10)]), 'a.wav');
      openai.enqueue({ text: 'plain words' });
      const response = await fetch(`${openai.url}/audio/transcriptions`, { method: 'POST', body: form });
      expect(response.headers.get('content-type')).to.match(/^text\/plain/);
      expect(await response.text()).to.equal('plain words\n');
    });

    it('leaves path-scoped scripts to requests of that path', async () => {
      openai.enqueue({ path: '/v1/embeddings', usage: { inputTokens: 99, outputTokens: 0 } });
      const chatAnswer = (await (await post(`${openai.url}/chat/completions`, { model: 'm', messages: [] })).json()) as Json;
      expect(chatAnswer.usage.prompt_tokens).to.equal(DEFAULT_USAGE.inputTokens);
      expect(openai.pending).to.equal(1);
      const embeddings = (await (await post(`${openai.url}/embeddings`, { model: 'e', input: 'a' })).json()) as Json;
      expect(embeddings.usage.prompt_tokens).to.equal(99);
    });
  });

  describe('fake OpenAI videos', () => {
    const create = async (body: Json = {}): Promise<Json> => (await (await post(`${openai.url}/videos`, { model: 'sora-2', prompt: 'a cat', ...body })).json()) as Json;
    const status = async (id: string): Promise<Json> => (await (await fetch(`${openai.url}/videos/${id}`)).json()) as Json;

    it('moves a job from queued to in_progress to completed on scripted timings, then serves the file', async () => {
      openai.enqueue({ video: { inProgressAfterMs: 30, completeAfterMs: 120 } });
      const job = await create({ seconds: '8', size: '1280x720' });
      expect(job).to.deep.include({ object: 'video', status: 'queued', progress: 0, seconds: '8', size: '1280x720', error: null });
      expect((await fetch(`${openai.url}/videos/${job.id}/content`)).status).to.equal(404);
      await sleep(50);
      expect((await status(job.id as string)).status).to.equal('in_progress');
      await sleep(100);
      const done = await status(job.id as string);
      expect(done).to.deep.include({ status: 'completed', progress: 100 });
      expect(done.completed_at).to.be.a('number');
      const content = await fetch(`${openai.url}/videos/${job.id}/content`);
      expect(content.headers.get('content-type')).to.equal('video/mp4');
    });

    it('fails a job on a timing or by hand, and deletes it', async () => {
      openai.enqueue({ video: { failAfterMs: 0, failure: { code: 'moderation_blocked', message: 'blocked' } } }, { video: { manual: true } });
      const failing = await create();
      expect(failing.status).to.equal('failed');
      expect(failing.error).to.deep.equal({ code: 'moderation_blocked', message: 'blocked' });
      const manual = await create();
      await sleep(80);
      expect((await status(manual.id as string)).status).to.equal('queued');
      openai.videos.fail(manual.id as string);
      expect((await status(manual.id as string)).status).to.equal('failed');
      const deleted = (await (await fetch(`${openai.url}/videos/${manual.id}`, { method: 'DELETE' })).json()) as Json;
      expect(deleted).to.deep.equal({ id: manual.id, object: 'video.deleted', deleted: true });
      expect((await fetch(`${openai.url}/videos/${manual.id}`)).status).to.equal(404);
    });
  });

  describe('fake Anthropic', () => {
    const messages = (body: Json, headers?: Record<string, string>): Promise<Response> =>
      post(`${anthropic.url}/v1/messages`, { model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], ...body }, headers);

    it('streams a well-formed event sequence with cumulative usage in message_delta', async () => {
      anthropic.enqueue({ reasoning: 'hmm', text: 'a b', toolCalls: [{ name: 't1', arguments: {} }, { name: 't2', arguments: { x: 1 } }], usage: { inputTokens: 3, outputTokens: 30, cachedInputTokens: 2 } });
      const list = await events(await messages({ stream: true }));
      checkMessagesStream(list);
      const data = payloads(list);
      expect(data[0]!.message.usage).to.include({ input_tokens: 3, output_tokens: 1, cache_read_input_tokens: 2 });
      expect(data.at(-2)).to.deep.equal({
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { input_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 2, output_tokens: 30 },
      });
      expect(data.filter((event) => event.type === 'content_block_start').map((event) => event.content_block.type)).to.deep.equal(['thinking', 'text', 'tool_use', 'tool_use']);
    });

    it('leaves usage out when scripted with usage: null, and answers stop sequences', async () => {
      anthropic.enqueue({ usage: null, finish: 'stop_sequence', stopSequence: '\n\nHuman:' });
      const data = payloads(await events(await messages({ stream: true })));
      expect(data[0]!.message).not.to.have.property('usage');
      expect(data.at(-2)).to.deep.equal({ type: 'message_delta', delta: { stop_reason: 'stop_sequence', stop_sequence: '\n\nHuman:' } });
    });

    it('wants anthropic-version, like the API', async () => {
      const response = await fetch(`${anthropic.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).to.equal(400);
      expect(await response.json()).to.have.nested.property('error.type', 'invalid_request_error');
    });
  });

  describe('benchmark fast path (record: false)', () => {
    it('answers unscripted requests from cached bytes and records nothing, and still honours scripts', async () => {
      const fast = await startFakeOpenAi({ record: false });
      const fastAnthropic = await startFakeAnthropic({ record: false });
      try {
        const first = (await (await post(`${fast.url}/chat/completions`, { model: 'm1', messages: [] })).json()) as Json;
        const second = (await (await post(`${fast.url}/chat/completions`, { model: 'm1', messages: [] })).json()) as Json;
        expect(first.choices[0].message.content).to.equal(DEFAULT_TEXT);
        expect(second).to.deep.equal(first);
        const streamed = payloads(await events(await post(`${fast.url}/chat/completions`, { model: 'm1', messages: [], stream: true, stream_options: { include_usage: true } })));
        expect(streamed.at(-1)!.usage.total_tokens).to.equal(19);
        fast.enqueue({ text: 'scripted' });
        const scripted = (await (await post(`${fast.url}/chat/completions`, { model: 'm1', messages: [] })).json()) as Json;
        expect(scripted.choices[0].message.content).to.equal('scripted');
        checkMessagesStream(await events(await post(`${fastAnthropic.url}/v1/messages`, { model: 'c', max_tokens: 5, messages: [], stream: true })));
        expect(fast.requests).to.have.length(0);
      } finally {
        await fast.close();
        await fastAnthropic.close();
      }
    });
  });
});
