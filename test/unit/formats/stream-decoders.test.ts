import { expect } from 'chai';
import { CanonicalResponseAccumulator } from '../../support/canonical-response-accumulator.js';
import type { CanonicalStreamEvent } from '../../../src/formats/canonical/canonical-stream-event.js';
import { FORMAT_NAMES, type FormatName } from '../../../src/formats/canonical/format-name.js';
import type { StreamDecoder } from '../../../src/formats/canonical/stream-codec.js';
import { formatCodecs } from '../../../src/formats/format-codecs.js';
import type { JsonObject } from '../../../src/formats/json-value.js';
import type { SseEvent } from '../../../src/formats/sse-event.js';
import { createClientStream } from '../../../src/formats/translate.js';
import { validateChatStream } from '../../support/stream-validators/chat-stream-validator.js';
import { validateResponsesStream } from '../../support/stream-validators/responses-stream-validator.js';
import { ANSWERS } from '../../support/format-fixtures/provider-answers.js';
import { providerResponse, providerStream } from '../../../ops/provider-answers/provider-answers.js';
import { messagesSdkFinal, chatSdkFinal, responsesSdkFinal } from '../../support/format-fixtures/sdk-accumulators.js';
import { readSseFixture } from '../../support/format-fixtures/sse-text.js';

function decode(decoder: StreamDecoder, events: readonly SseEvent[]): CanonicalStreamEvent[] {
  const out: CanonicalStreamEvent[] = [];
  for (const event of events) decoder.push(event, out);
  decoder.end(out);
  return out;
}

/** Same JSON, keys in reverse order at every level: never matches a fast path, so the parse path decodes it. */
function reordered(event: SseEvent): SseEvent {
  if (!event.data.startsWith('{')) return event;
  const reverse = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(reverse);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(Object.entries(value).reverse().map(([key, inner]) => [key, reverse(inner)]));
  };
  return { ...event, data: JSON.stringify(reverse(JSON.parse(event.data))) };
}

const IDENTITY = { requestId: 'gen-DecoderTest000000001', model: 'anthropic/claude-opus-4-8', created: 1_750_000_000, includeUsage: true } as const;

describe('formats: stream decoders', () => {
  it('the verbatim Anthropic SDK tool-use fixture reaches every client format intact', async () => {
    const fixture = readSseFixture('anthropic-tool-use-response.sse');
    const expectedArgs = { location: 'Paris' };

    const toMessages = createClientStream('messages', 'messages', IDENTITY);
    const messagesOut = fixture.flatMap((event) => toMessages.push(event));
    const message = await messagesSdkFinal([...messagesOut, ...toMessages.end()]);
    expect(message.content).to.deep.equal([
      { type: 'text', text: "I'll check the current weather in Paris for you." },
      { type: 'tool_use', id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', input: expectedArgs },
    ]);
    expect(message.stop_reason).to.equal('tool_use');
    expect(message.model).to.equal(IDENTITY.model);

    const toChat = createClientStream('messages', 'chat', IDENTITY);
    const chatOut = [...fixture.flatMap((event) => toChat.push(event)), ...toChat.end()];
    expect(validateChatStream(chatOut, { includeUsage: true })).to.deep.equal([]);
    const completion = await chatSdkFinal(chatOut, true);
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).to.deep.equal(expectedArgs);
    expect(call.id).to.equal('toolu_01NRLabsLyVHZPKxbKvkfSMn');
    expect(completion.choices[0]!.finish_reason).to.equal('tool_calls');
    expect(completion.usage).to.deep.include({ prompt_tokens: 377, completion_tokens: 65, total_tokens: 442 });

    const toResponses = createClientStream('messages', 'responses', IDENTITY);
    const responsesOut = [...fixture.flatMap((event) => toResponses.push(event)), ...toResponses.end()];
    expect(validateResponsesStream(responsesOut)).to.deep.equal([]);
    const response = await responsesSdkFinal(responsesOut);
    const item = response.output.find((candidate) => candidate.type === 'function_call');
    expect(item?.type === 'function_call' && JSON.parse(item.arguments)).to.deep.equal(expectedArgs);
    expect(response.output_text).to.equal("I'll check the current weather in Paris for you.");
  });

  for (const format of FORMAT_NAMES) {
    it(`${format}: the fast path and the parse path decode to the same events`, () => {
      for (const spec of ANSWERS) {
        const events = providerStream(format, spec);
        const fast = decode(formatCodecs[format].createDecoder(), events);
        const parsed = decode(formatCodecs[format].createDecoder(), events.map(reordered));
        expect(fast, spec.name).to.deep.equal(parsed);
      }
    });
  }

  for (const format of FORMAT_NAMES) {
    it(`${format}: a decoded stream folds into the same canonical answer as the non-streaming parse`, () => {
      const normalise = (response: ReturnType<CanonicalResponseAccumulator['response']>) => ({
        ...response,
        id: '',
        model: '',
        content: response.content.map((part) => (part.type === 'tool_call' ? { ...part, arguments: JSON.parse(part.arguments) as unknown } : part)),
      });
      for (const spec of ANSWERS.filter((answer) => !answer.failMidStream)) {
        const accumulator = new CanonicalResponseAccumulator();
        decode(formatCodecs[format].createDecoder(), providerStream(format, spec)).forEach((event) => accumulator.push(event));
        const parsed = formatCodecs[format].parseResponse(providerResponse(format, spec));
        expect(normalise(accumulator.response()), spec.name).to.deep.equal(normalise(parsed));
      }
    });
  }

  it('chat: the finish waits for the usage chunk that follows it, and [DONE] releases it', () => {
    const events = decode(formatCodecs.chat.createDecoder(), providerStream('chat', ANSWERS[0]!));
    const finish = events.at(-1);
    expect(finish?.type).to.equal('finish');
    expect(finish?.type === 'finish' && finish.usage?.inputTokens).to.equal(100);
  });

  it('chat: a stream cut before [DONE] ends with the pending finish, or an error when there is none', () => {
    const full = providerStream('chat', ANSWERS[0]!);
    const withoutDone = decode(formatCodecs.chat.createDecoder(), full.slice(0, -1));
    expect(withoutDone.at(-1)?.type).to.equal('finish');
    const cut = decode(formatCodecs.chat.createDecoder(), full.slice(0, 3));
    expect(cut.at(-1)?.type).to.equal('error');
  });

  it('chat: tool calls from a server that sends no ids get stable synthetic ids', () => {
    const chunk = (delta: JsonObject, finish: string | null = null): SseEvent => ({ data: JSON.stringify({ id: 'x-1', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] }) });
    const events = decode(formatCodecs.chat.createDecoder(), [
      chunk({ role: 'assistant' }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'a', arguments: '{"x":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
      chunk({}, 'tool_calls'),
      { data: '[DONE]' },
    ]);
    const accumulator = new CanonicalResponseAccumulator();
    events.forEach((event) => accumulator.push(event));
    expect(accumulator.response().content).to.deep.equal([{ type: 'tool_call', id: 'call_x-1_0', name: 'a', arguments: '{"x":1}' }]);
  });

  it('responses: response.failed and the flat error event become canonical errors', () => {
    const failed = decode(formatCodecs.responses.createDecoder(), [
      { event: 'response.failed', data: JSON.stringify({ type: 'response.failed', sequence_number: 0, response: { status: 'failed', error: { code: 'rate_limit_exceeded', message: 'slow down' } } }) },
    ]);
    expect(failed).to.deep.equal([{ type: 'error', error: { status: 429, type: 'rate_limit_error', code: 'provider_error', message: 'slow down', providerType: 'rate_limit_exceeded' } }]);
    const flat = decode(formatCodecs.responses.createDecoder(), [{ event: 'error', data: '{"type":"error","code":"ERR_SOMETHING","message":"Something went wrong","param":null,"sequence_number":1}' }]);
    expect(flat[0]?.type === 'error' && flat[0].error.message).to.equal('Something went wrong');
  });

  it('responses: arguments sent only in output_item.done are not lost', () => {
    const events = decode(formatCodecs.responses.createDecoder(), [
      { event: 'response.created', data: '{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","model":"m","status":"in_progress","output":[]}}' },
      { event: 'response.output_item.added', data: '{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":""}}' },
      { event: 'response.output_item.done', data: '{"type":"response.output_item.done","sequence_number":2,"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{\\"a\\":1}"}}' },
      { event: 'response.completed', data: '{"type":"response.completed","sequence_number":3,"response":{"status":"completed","output":[],"usage":null}}' },
    ]);
    const accumulator = new CanonicalResponseAccumulator();
    events.forEach((event) => accumulator.push(event));
    expect(accumulator.response()).to.deep.include({ stopReason: 'tool_use', content: [{ type: 'tool_call', id: 'call_1', name: 'f', arguments: '{"a":1}' }] });
  });

  for (const client of FORMAT_NAMES) {
    it(`an error before anything was streamed still gives a ${client} client a well-formed failure`, () => {
      const stream = createClientStream('messages', client, IDENTITY);
      const out = stream.push({ event: 'error', data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' });
      expect(out.length).to.be.greaterThan(0);
      if (client === 'responses') expect(validateResponsesStream(out)).to.deep.equal([]);
      if (client === 'chat') expect(validateChatStream(out, { includeUsage: true })).to.deep.equal([]);
      expect(stream.error?.type).to.equal('api_error');
      expect(stream.done).to.equal(true);
    });
  }
});

export type { FormatName };
