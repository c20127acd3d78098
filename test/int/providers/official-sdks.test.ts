import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI, { toFile } from 'openai';
import { startFakeAnthropic, type FakeAnthropic } from '../../../ops/fake-providers/fake-anthropic-provider.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../../ops/fake-providers/fake-openai-provider.js';
import { TINY_PNG_BASE64 } from '../../../ops/fake-providers/scripted-answer.js';

// The official clients parse and accumulate what the fakes send: proof that the fakes are faithful
// (peer-pitfalls.md: "shapes checked against the official SDKs' stream accumulators").
describe('the official SDKs against the fake providers', () => {
  let fakeOpenAi: FakeOpenAi;
  let fakeAnthropic: FakeAnthropic;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => {
    fakeOpenAi = await startFakeOpenAi({ apiKey: 'sk-fake' });
    fakeAnthropic = await startFakeAnthropic({ apiKey: 'ant-fake' });
    openai = new OpenAI({ apiKey: 'sk-fake', baseURL: fakeOpenAi.url, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: 'ant-fake', baseURL: fakeAnthropic.url, maxRetries: 0 });
  });
  beforeEach(() => {
    fakeOpenAi.reset();
    fakeAnthropic.reset();
  });
  after(async () => {
    await fakeOpenAi.close();
    await fakeAnthropic.close();
  });

  describe('openai', () => {
    it('parses a chat completion with usage', async () => {
      fakeOpenAi.enqueue({ text: 'Bonjour', usage: { inputTokens: 9, outputTokens: 2, cachedInputTokens: 4 } });
      const completion = await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
      expect(completion.choices[0]?.message.content).to.equal('Bonjour');
      expect(completion.choices[0]?.finish_reason).to.equal('stop');
      expect(completion.usage).to.deep.include({ prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 });
      expect(completion.usage?.prompt_tokens_details?.cached_tokens).to.equal(4);
    });

    it('iterates a chat stream; the usage chunk comes only with include_usage', async () => {
      fakeOpenAi.enqueue({ text: 'one two three' });
      const stream = await openai.chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let usageChunks = 0;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) {
          usageChunks++;
          expect(chunk.choices).to.deep.equal([]);
        }
      }
      expect(text).to.equal('one two three');
      expect(usageChunks).to.equal(1);

      const plain = await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true });
      for await (const chunk of plain) expect(chunk).not.to.have.property('usage');
    });

    it('accumulates several streamed tool calls with the SDK’s chat stream helper', async () => {
      fakeOpenAi.enqueue({
        text: 'Let me check.',
        toolCalls: [
          { id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'call_2', name: 'get_time', arguments: { zone: 'CET' } },
        ],
      });
      const stream = openai.chat.completions.stream({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'weather and time?' }],
        tools: [
          { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } },
          { type: 'function', function: { name: 'get_time', parameters: { type: 'object' } } },
        ],
      });
      const completion = await stream.finalChatCompletion();
      const message = completion.choices[0]!.message;
      expect(message.content).to.equal('Let me check.');
      expect(completion.choices[0]!.finish_reason).to.equal('tool_calls');
      expect(message.tool_calls?.map((call) => (call.type === 'function' ? [call.id, call.function.name, JSON.parse(call.function.arguments)] : []))).to.deep.equal([
        ['call_1', 'get_weather', { city: 'Paris' }],
        ['call_2', 'get_time', { zone: 'CET' }],
      ]);
    });

    it('throws the SDK’s error class, with the status and Retry-After, for a scripted 429', async () => {
      fakeOpenAi.enqueue({ error: { status: 429, retryAfter: 3 } });
      try {
        await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
        expect.fail('expected a rate limit error');
      } catch (error) {
        expect(error).to.be.instanceOf(OpenAI.RateLimitError);
        const apiError = error as InstanceType<typeof OpenAI.RateLimitError>;
        expect(apiError.code).to.equal('rate_limit_exceeded');
        expect(apiError.headers.get('retry-after')).to.equal('3');
      }
    });

    it('decodes embeddings (the SDK asks for base64 by default)', async () => {
      const answer = await openai.embeddings.create({ model: 'text-embedding-test', input: ['a', 'b'] });
      expect(fakeOpenAi.lastRequest!.body).to.have.property('encoding_format', 'base64');
      expect(answer.data).to.have.length(2);
      expect(answer.data[0]!.embedding).to.have.length(8);
      expect(answer.data[0]!.embedding[0]).to.be.closeTo(Math.sin(1), 1e-4);
      expect(answer.usage.prompt_tokens).to.equal(16);
    });

    it('accumulates a responses stream with reasoning, text and a function call', async () => {
      fakeOpenAi.enqueue({ reasoning: 'Think first.', text: 'Here you go.', toolCalls: [{ id: 'call_9', name: 'lookup', arguments: { q: 'x' } }] });
      const stream = openai.responses.stream({ model: 'gpt-test', input: 'hi' });
      const sequence: number[] = [];
      stream.on('event', (event) => sequence.push(event.sequence_number));
      const response = await stream.finalResponse();
      expect(response.output_text).to.equal('Here you go.');
      expect(response.output.map((item) => item.type)).to.deep.equal(['reasoning', 'message', 'function_call']);
      expect(response.usage?.output_tokens).to.equal(7);
      expect(sequence).to.deep.equal(sequence.map((_, index) => index));
    });

    it('parses a responses answer, images, a transcription and a video job', async () => {
      const response = await openai.responses.create({ model: 'gpt-test', input: 'hi', max_output_tokens: 50 });
      expect(response.output_text).to.equal('Hello from the fake provider.');

      const images = await openai.images.generate({ model: 'gpt-image-test', prompt: 'a cat', n: 2 });
      expect(images.data?.map((image) => image.b64_json)).to.deep.equal([TINY_PNG_BASE64, TINY_PNG_BASE64]);
      expect(images.usage?.output_tokens).to.equal(544);

      fakeOpenAi.enqueue({ text: 'spoken words', usage: { inputTokens: 14, outputTokens: 3 } });
      const transcription = await openai.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await toFile(Buffer.alloc(512, 1), 'speech.wav') });
      expect(transcription.text).to.equal('spoken words');
      expect(transcription.usage).to.deep.include({ type: 'tokens', input_tokens: 14, output_tokens: 3 });
      expect(fakeOpenAi.lastRequest!.body).to.have.property('model', 'gpt-4o-transcribe');
      expect(fakeOpenAi.lastRequest!.body).to.have.property('file').that.deep.includes({ filename: 'speech.wav', size: 512 });

      fakeOpenAi.enqueue({ video: { manual: true } });
      const video = await openai.videos.create({ model: 'sora-2', prompt: 'a cat', seconds: '4' });
      expect(video.status).to.equal('queued');
      fakeOpenAi.videos.complete(video.id);
      expect((await openai.videos.retrieve(video.id)).status).to.equal('completed');
      const content = await openai.videos.downloadContent(video.id);
      expect(content.headers.get('content-type')).to.equal('video/mp4');
      expect(Buffer.from(await content.arrayBuffer()).subarray(4, 8).toString()).to.equal('ftyp');
    });
  });

  describe('@anthropic-ai/sdk', () => {
    it('parses a message', async () => {
      fakeAnthropic.enqueue({ text: 'Hi!', finish: 'stop_sequence', stopSequence: 'END', usage: { inputTokens: 5, outputTokens: 2, cachedInputTokens: 10 } });
      const message = await anthropic.messages.create({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
      expect(message.content).to.deep.equal([{ type: 'text', text: 'Hi!' }]);
      expect(message.stop_reason).to.equal('stop_sequence');
      expect(message.stop_sequence).to.equal('END');
      expect(message.usage).to.deep.include({ input_tokens: 5, output_tokens: 2, cache_read_input_tokens: 10 });
    });

    it('accumulates a stream with thinking, text and two tool uses into the final message', async () => {
      fakeAnthropic.enqueue({
        reasoning: 'The user wants two things.',
        text: 'Checking both.',
        deltas: 3,
        toolCalls: [
          { id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'toolu_2', name: 'get_time', arguments: '{"zone":"CET"}' },
        ],
        usage: { inputTokens: 40, outputTokens: 55, cacheWriteInputTokens: 3 },
      });
      const message = await anthropic.messages
        .stream({ model: 'claude-test', max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'go' }] })
        .finalMessage();
      expect(message.content.map((block) => block.type)).to.deep.equal(['thinking', 'text', 'tool_use', 'tool_use']);
      const [thinking, text, weather, time] = message.content;
      expect(thinking).to.include({ thinking: 'The user wants two things.' });
      expect(thinking).to.have.property('signature').that.is.a('string').and.not.empty;
      expect(text).to.include({ text: 'Checking both.' });
      expect(weather).to.deep.include({ id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } });
      expect(time).to.deep.include({ id: 'toolu_2', name: 'get_time', input: { zone: 'CET' } });
      expect(message.stop_reason).to.equal('tool_use');
      expect(message.usage).to.deep.include({ input_tokens: 40, output_tokens: 55, cache_creation_input_tokens: 3 });
    });

    it('stops at max_tokens and surfaces an event: error mid-stream as an APIError', async () => {
      fakeAnthropic.enqueue({ text: 'cut short', finish: 'max_tokens' });
      const cut = await anthropic.messages.stream({ model: 'claude-test', max_tokens: 2, messages: [{ role: 'user', content: 'go' }] }).finalMessage();
      expect(cut.stop_reason).to.equal('max_tokens');

      fakeAnthropic.enqueue({ text: 'a b c', errorEventAfter: 3 });
      try {
        await anthropic.messages.stream({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'go' }] }).finalMessage();
        expect.fail('expected the error event to throw');
      } catch (error) {
        expect(error).to.be.instanceOf(Anthropic.APIError);
        expect(String(error)).to.contain('overloaded_error');
      }
    });

    it('gets the provider’s error class and request id for a scripted 529', async () => {
      fakeAnthropic.enqueue({ error: { status: 529 } });
      try {
        await anthropic.messages.create({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
        expect.fail('expected an overloaded error');
      } catch (error) {
        expect(error).to.be.instanceOf(Anthropic.APIError);
        expect(error).to.have.property('status', 529);
        expect((error as InstanceType<typeof Anthropic.APIError>).requestID).to.match(/^req_fake/);
      }
    });
  });
});
