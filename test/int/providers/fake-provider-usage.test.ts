import { expect } from 'chai';
import type { SseEvent } from '../../../src/formats/sse-event.js';
import { SseParser } from '../../../src/providers/sse-parser.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../../ops/fake-providers/fake-anthropic-provider.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../../ops/fake-providers/fake-openai-provider.js';
import type { ScriptedUsage } from '../../../ops/fake-providers/scripted-answer.js';

// wire JSON read loosely: the shapes are those of wire-formats.md 1.3, 2.2 and 3.2
type Json = Record<string, any>;

/**
 * The fake providers report every token kind a test scripts, in each format's own fields, in a JSON answer
 * and in a stream (chat's usage chunk, messages' `message_start` and `message_delta`, responses'
 * `response.completed`): what the token-kind tests of test/e2e/token-kinds rely on.
 */
describe('fake providers: every token kind in the usage they report', () => {
  let openai: FakeOpenAi;
  let anthropic: FakeAnthropic;
  before(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
  });
  after(async () => {
    await openai.close();
    await anthropic.close();
  });

  async function post(url: string, body: Json): Promise<{ json?: Json; events?: Json[] }> {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify(body) });
    if (!body.stream) return { json: (await response.json()) as Json };
    const parser = new SseParser();
    const all: SseEvent[] = [];
    parser.push(new Uint8Array(await response.arrayBuffer()), (event) => all.push(event));
    parser.end((event) => all.push(event));
    return { events: all.filter((event) => event.data !== '[DONE]').map((event) => JSON.parse(event.data) as Json) };
  }

  const openAiUsage: ScriptedUsage = { inputTokens: 16_000, cachedInputTokens: 10_000, cacheWriteInputTokens: 3_000, cacheWrite1hInputTokens: 1_000, audioInputTokens: 500, outputTokens: 900, reasoningTokens: 300, audioOutputTokens: 200 };

  for (const stream of [false, true]) {
    const mode = stream ? 'streamed' : 'JSON';

    it(`chat (${mode}): the details inside prompt_tokens and completion_tokens, LiteLLM's split of the writes`, async () => {
      openai.enqueue({ usage: openAiUsage });
      const answer = await post(`${openai.url}/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream, stream_options: { include_usage: true } });
      const usage = stream ? answer.events!.at(-1)!.usage : answer.json!.usage;
      expect(usage).to.deep.equal({
        prompt_tokens: 16_000,
        completion_tokens: 900,
        total_tokens: 16_900,
        prompt_tokens_details: { cached_tokens: 10_000, audio_tokens: 500, cache_write_tokens: 3_000, cache_creation_token_details: { ephemeral_5m_input_tokens: 2_000, ephemeral_1h_input_tokens: 1_000 } },
        completion_tokens_details: { reasoning_tokens: 300, audio_tokens: 200, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      });
    });

    it(`chat (${mode}): reasoning reported beside completion_tokens when scripted so`, async () => {
      openai.enqueue({ usage: { inputTokens: 2_000, outputTokens: 400, reasoningTokens: 300, reasoningBesideOutput: true } });
      const answer = await post(`${openai.url}/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream, stream_options: { include_usage: true } });
      const usage = stream ? answer.events!.at(-1)!.usage : answer.json!.usage;
      expect(usage).to.deep.include({ prompt_tokens: 2_000, completion_tokens: 100, total_tokens: 2_400 });
      expect(usage.completion_tokens_details.reasoning_tokens).to.equal(300);
    });

    it(`responses (${mode}): cached, cache-write, audio and reasoning details`, async () => {
      openai.enqueue({ usage: openAiUsage });
      const answer = await post(`${openai.url}/responses`, { model: 'm', input: 'hi', stream });
      const usage = stream ? answer.events!.at(-1)!.response.usage : answer.json!.usage;
      expect(usage).to.deep.equal({
        input_tokens: 16_000,
        input_tokens_details: { cached_tokens: 10_000, cache_write_tokens: 3_000, audio_tokens: 500 },
        output_tokens: 900,
        output_tokens_details: { reasoning_tokens: 300, audio_tokens: 200 },
        total_tokens: 16_900,
      });
    });

    it(`messages (${mode}): Anthropic's input without the cache, the split of the writes and the thinking tokens`, async () => {
      anthropic.enqueue({ usage: { inputTokens: 2_000, cachedInputTokens: 10_000, cacheWriteInputTokens: 3_000, cacheWrite1hInputTokens: 1_000, outputTokens: 400, reasoningTokens: 300 } });
      const answer = await post(`${anthropic.url}/v1/messages`, { model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], stream });
      const whole = {
        input_tokens: 2_000,
        cache_creation_input_tokens: 3_000,
        cache_read_input_tokens: 10_000,
        cache_creation: { ephemeral_5m_input_tokens: 2_000, ephemeral_1h_input_tokens: 1_000 },
        output_tokens: 400,
        output_tokens_details: { thinking_tokens: 300 },
        service_tier: 'standard',
      };
      if (!stream) return void expect(answer.json!.usage).to.deep.equal(whole);
      // message_start: the output has barely begun, no thinking counted yet
      const { output_tokens_details: _thinking, ...start } = whole;
      expect(answer.events![0]!.message.usage).to.deep.equal({ ...start, output_tokens: 1 });
      expect(answer.events!.at(-2)!.usage).to.deep.equal({
        input_tokens: 2_000,
        cache_creation_input_tokens: 3_000,
        cache_read_input_tokens: 10_000,
        output_tokens: 400,
        output_tokens_details: { thinking_tokens: 300 },
      });
    });
  }

  it('messages stream: message_delta with the output count alone, and message_start saying other counts than the final ones', async () => {
    anthropic.enqueue({
      usage: { inputTokens: 2_000, cachedInputTokens: 10_000, outputTokens: 400, messageDelta: 'output', messageStart: { inputTokens: 2_000, cachedInputTokens: 0, outputTokens: 1 } },
    });
    const { events } = await post(`${anthropic.url}/v1/messages`, { model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], stream: true });
    expect(events![0]!.message.usage).to.include({ input_tokens: 2_000, cache_read_input_tokens: 0, output_tokens: 1 });
    expect(events!.at(-2)!.usage).to.deep.equal({ output_tokens: 400 });
  });
});
