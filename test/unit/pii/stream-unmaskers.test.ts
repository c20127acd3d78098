import { expect } from 'chai';
import { Placeholders } from '../../../src/pii/placeholders.js';
import type { StreamEvent } from '../../../src/pii/streams/stream-event.js';
import { streamUnmasker } from '../../../src/pii/streams/stream-unmasker.js';
import type { MaskedFormat } from '../../../src/pii/masked-format.js';

const EMAIL = 'jane@example.com';
const NAME = 'Jo "JJ" Smith';

function placeholders(): Placeholders {
  const map = new Placeholders();
  map.placeholderFor('EMAIL', EMAIL);
  map.placeholderFor('NAME', NAME);
  return map;
}

function run(format: MaskedFormat, events: StreamEvent[]): Array<Record<string, unknown> | string> {
  const unmasker = streamUnmasker(format, placeholders());
  const out = [...events.flatMap((event) => unmasker.push(event)), ...unmasker.end()];
  return out.map((event) => (event.data.startsWith('{') ? (JSON.parse(event.data) as Record<string, unknown>) : event.data));
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null): StreamEvent => ({
  data: JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] }),
});
const deltasOf = (events: Array<Record<string, unknown> | string>) => events.filter((event) => typeof event !== 'string').map((event) => (event as { choices: Array<{ delta: Record<string, unknown> }> }).choices[0]?.delta);

describe('pii: unmasking streams', () => {
  it('chat: a placeholder split across chunks, in content and in tool-call arguments (escaped as JSON)', () => {
    const out = run('chat', [
      chunk({ role: 'assistant', content: 'Hi [NA' }),
      chunk({ content: 'ME_1], mail [EMA' }),
      chunk({ content: 'IL_1] or [EMAIL_9].' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'mail', arguments: '{"to":"[NAM' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'E_1]"}' } }] }),
      chunk({}, 'tool_calls'),
      { data: '[DONE]' },
    ]);
    const deltas = deltasOf(out);
    expect(deltas.map((delta) => delta?.content ?? '').join('')).to.equal(`Hi ${NAME}, mail ${EMAIL} or [EMAIL_9].`);
    const args = deltas.flatMap((delta) => (delta?.tool_calls as Array<{ function: { arguments: string } }> | undefined) ?? []).map((call) => call.function.arguments);
    expect(JSON.parse(args.join(''))).to.deep.equal({ to: NAME });
    expect(out.at(-1)).to.equal('[DONE]');
  });

  it('chat: what looked like the start of a placeholder comes out in the finishing chunk', () => {
    const out = run('chat', [chunk({ content: 'see [EMAIL_' }), chunk({}, 'stop'), { data: '[DONE]' }]);
    expect(deltasOf(out).map((delta) => delta?.content ?? '').join('')).to.equal('see [EMAIL_');
    expect(out).to.have.length(3);
  });

  it('messages: split text and partial JSON per block; held text given out just before the block stops', () => {
    const block = (index: number, delta: Record<string, unknown>): StreamEvent => ({ event: 'content_block_delta', data: JSON.stringify({ type: 'content_block_delta', index, delta }) });
    const stop = (index: number): StreamEvent => ({ event: 'content_block_stop', data: JSON.stringify({ type: 'content_block_stop', index }) });
    const out = run('messages', [
      block(0, { type: 'text_delta', text: 'Dear [NAME' }),
      block(0, { type: 'text_delta', text: '_1], ends with [' }),
      stop(0),
      block(1, { type: 'input_json_delta', partial_json: '{"to": "[EMAIL' }),
      block(1, { type: 'input_json_delta', partial_json: '_1]"}' }),
      stop(1),
      { event: 'message_stop', data: '{"type":"message_stop"}' },
    ]) as Array<{ type: string; index?: number; delta?: Record<string, string> }>;
    expect(out.map((event) => event.type)).to.deep.equal(['content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_stop']);
    expect(out.slice(0, 3).map((event) => event.delta!.text).join('')).to.equal(`Dear ${NAME}, ends with [`);
    expect(out[2]).to.deep.equal({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '[' } });
    expect(JSON.parse(out.slice(4, 6).map((event) => event.delta!.partial_json).join(''))).to.deep.equal({ to: EMAIL });
  });

  it('responses: split deltas, whole texts in the done events, and sequence numbers kept one by one after an added event', () => {
    const event = (type: string, fields: Record<string, unknown>, sequence: number): StreamEvent => ({ event: type, data: JSON.stringify({ type, sequence_number: sequence, ...fields }) });
    const at = { item_id: 'msg_1', output_index: 0, content_index: 0 };
    const out = run('responses', [
      event('response.output_text.delta', { ...at, delta: 'Hi [NA' }, 3),
      event('response.output_text.delta', { ...at, delta: 'ME_1] [EMAIL' }, 4),
      event('response.output_text.done', { ...at, text: 'Hi [NAME_1] [EMAIL' }, 5),
      event('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 1, delta: '{"to":"[EMAIL_1]"}' }, 6),
      event('response.completed', { response: { output: [{ type: 'message', content: [{ type: 'output_text', text: 'Hi [NAME_1] [EMAIL' }] }] } }, 7),
    ]) as Array<Record<string, unknown>>;
    expect(out.map((item) => [item.type, item.sequence_number])).to.deep.equal([
      ['response.output_text.delta', 3],
      ['response.output_text.delta', 4],
      ['response.output_text.delta', 5],
      ['response.output_text.done', 6],
      ['response.function_call_arguments.delta', 7],
      ['response.completed', 8],
    ]);
    expect(out.slice(0, 3).map((item) => item.delta).join('')).to.equal(`Hi ${NAME} [EMAIL`);
    expect(out[2]).to.include({ item_id: 'msg_1', output_index: 0, content_index: 0 });
    expect(out[3]!.text).to.equal(`Hi ${NAME} [EMAIL`);
    expect(JSON.parse(out[4]!.delta as string)).to.deep.equal({ to: EMAIL });
    expect(JSON.stringify(out[5])).to.include(`Hi ${NAME.replace(/"/g, '\\"')} [EMAIL`);
  });

  it('passes events without a placeholder through untouched', () => {
    const ping: StreamEvent = { event: 'ping', data: '{"type": "ping"}' };
    expect(streamUnmasker('messages', placeholders()).push(ping)[0]).to.equal(ping);
  });
});
