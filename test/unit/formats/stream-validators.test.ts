import { expect } from 'chai';
import { validateChatStream } from '../../support/stream-validators/chat-stream-validator.js';
import { validateMessagesStream } from '../../support/stream-validators/messages-stream-validator.js';
import { validateResponsesStream } from '../../support/stream-validators/responses-stream-validator.js';
import type { SseEvent } from '../../../src/formats/sse-event.js';
import { ANSWERS } from '../../support/format-fixtures/provider-answers.js';
import { chatProviderStream } from '../../../ops/provider-answers/chat-provider-answer.js';
import { messagesProviderStream } from '../../../ops/provider-answers/messages-provider-answer.js';
import { responsesProviderStream } from '../../../ops/provider-answers/responses-provider-answer.js';
import { readSseFixture } from '../../support/format-fixtures/sse-text.js';

/** The validators must catch the broken streams peers shipped (peer-pitfalls.md, streaming translation). */
const TOOLS = ANSWERS[1]!;
const named = (value: object): SseEvent => ({ event: (value as { type: string }).type, data: JSON.stringify(value) });

function edit(events: SseEvent[], change: (events: SseEvent[]) => void): SseEvent[] {
  const copy = [...events];
  change(copy);
  return copy;
}

describe('formats: stream validators', () => {
  it('accept well-formed provider streams and the verbatim Anthropic fixture', () => {
    expect(validateMessagesStream(readSseFixture('anthropic-tool-use-response.sse'))).to.deep.equal([]);
    for (const spec of ANSWERS.filter((answer) => !answer.failMidStream)) {
      expect(validateMessagesStream(messagesProviderStream(spec)), spec.name).to.deep.equal([]);
      expect(validateResponsesStream(responsesProviderStream(spec)), spec.name).to.deep.equal([]);
      expect(validateChatStream(chatProviderStream(spec), { includeUsage: true }), spec.name).to.deep.equal([]);
    }
  });

  describe('messages (LiteLLM #32357, #33224, #37273, #13373; Portkey stream generator)', () => {
    const base = messagesProviderStream(TOOLS);
    it('duplicate message_start', () => {
      expect(validateMessagesStream(edit(base, (events) => events.splice(1, 0, events[0]!)))).to.include('event 1: second message_start');
    });
    it('duplicate content_block_stop (runs tools twice)', () => {
      const stop = base.findIndex((event) => event.event === 'content_block_stop');
      expect(validateMessagesStream(edit(base, (events) => events.splice(stop, 0, events[stop]!)))).to.include(`event ${stop + 1}: stop for block 0 which is not open`);
    });
    it('delta for a block that does not exist ("content block not found")', () => {
      const bad = named({ type: 'content_block_delta', index: 7, delta: { type: 'text_delta', text: 'x' } });
      expect(validateMessagesStream(edit(base, (events) => events.splice(3, 0, bad)))).to.include('event 3: delta for block 7 which is not open');
    });
    it('thinking text inside a text block', () => {
      const bad = named({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } });
      expect(validateMessagesStream(edit(base, (events) => events.splice(3, 0, bad)))).to.include('event 3: thinking_delta in a text block');
    });
    it('a tool_use block nested one level too deep (Portkey)', () => {
      const start = base.findIndex((event) => event.data.includes('"tool_use"'));
      const nested = named({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', tool_use: { id: 'toolu_1', name: 'get_weather', input: {} } } });
      const violations = validateMessagesStream(edit(base, (events) => events.splice(start, 1, nested)));
      expect(violations.some((violation) => violation.includes('not flat'))).to.equal(true);
    });
    it('message_stop without message_delta, and indices out of order', () => {
      expect(validateMessagesStream(edit(base, (events) => events.splice(events.length - 2, 1)))).to.include(`event ${base.length - 2}: message_stop without message_delta`);
      const skipped = named({ type: 'content_block_start', index: 5, content_block: { type: 'text', text: '' } });
      expect(validateMessagesStream([base[0]!, skipped])).to.include('event 1: block index 5, expected 0');
    });
    it('empty tool input that is not an object (LiteLLM #25321)', () => {
      const start = base.findIndex((event) => event.data.includes('"tool_use"'));
      const broken = named({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '[1' } });
      expect(validateMessagesStream(edit(base, (events) => events.splice(start + 1, 0, broken))).some((violation) => violation.includes('JSON object'))).to.equal(true);
    });
  });

  describe('chat', () => {
    const base = chatProviderStream(TOOLS);
    it('usage shown to a client that did not ask', () => {
      expect(validateChatStream(base, { includeUsage: false }).some((violation) => violation.includes('did not ask'))).to.equal(true);
    });
    it('missing usage chunk when asked, missing [DONE], missing role', () => {
      const withoutUsage = base.filter((event) => !event.data.includes('"usage":{'));
      expect(validateChatStream(withoutUsage, { includeUsage: true })).to.include('expected exactly one usage chunk, got 0');
      expect(validateChatStream(base.slice(0, -1), { includeUsage: true })).to.include('the stream has no terminal event ([DONE] or error)');
      expect(validateChatStream(base.slice(1), { includeUsage: true })).to.include('event 0: the first chunk does not carry role assistant');
    });
    it('a tool call that starts without its name, or is resumed after the next one started (Portkey #1275)', () => {
      const first = base.findIndex((event) => event.data.includes('"tool_calls"'));
      const anonymous = edit(base, (events) => (events[first] = { data: events[first]!.data.replace('"name":"get_weather"', '"name":""') }));
      expect(validateChatStream(anonymous, { includeUsage: true })).to.include(`event ${first}: first fragment of tool call 0 lacks id, type or name`);
      const last = base.findLastIndex((event) => event.data.includes('"tool_calls"'));
      const resumed = edit(base, (events) => events.splice(last + 1, 0, { data: events[first + 1]!.data }));
      expect(validateChatStream(resumed, { includeUsage: true })).to.include(`event ${last + 1}: tool call 0 continued after call 1 started`);
    });
  });

  describe('responses', () => {
    const base = responsesProviderStream(TOOLS);
    it('sequence_number not monotonic, missing (Portkey omits it)', () => {
      const swapped = edit(base, (events) => ([events[3], events[4]] = [events[4]!, events[3]!]));
      expect(validateResponsesStream(swapped).some((violation) => violation.includes('sequence_number'))).to.equal(true);
      const missing = base.map((event) => ({ ...event, data: event.data.replace(/"sequence_number":\d+,/, '') }));
      expect(validateResponsesStream(missing)).to.include('event 0: sequence_number undefined, expected 0');
    });
    it('no terminal event, or a final output that differs from the streamed items', () => {
      expect(validateResponsesStream(base.slice(0, -1))).to.include('the stream has no terminal event');
      const tampered = edit(base, (events) => (events[events.length - 1] = { ...events.at(-1)!, data: events.at(-1)!.data.replace('get_time', 'get_tim') }));
      expect(validateResponsesStream(tampered).some((violation) => violation.includes('final output differs'))).to.equal(true);
    });
  });
});
