import type { SseEvent } from '../../src/formats/sse-event.js';
import type { JsonObject } from '../../src/formats/json-value.js';
import { named, type AnswerSpec } from './answer-spec.js';

// ---------------------------------------------------------------- messages (wire-formats.md 2.2–2.3)

function messagesUsage(spec: AnswerSpec, output: number): JsonObject {
  const u = spec.usage;
  return {
    input_tokens: u.input - u.cached - u.cacheWrite,
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cached,
    output_tokens: output,
    ...(u.reasoning > 0 ? { output_tokens_details: { thinking_tokens: u.reasoning } } : {}),
  };
}

export function messagesProviderResponse(spec: AnswerSpec): JsonObject {
  const content: JsonObject[] = [];
  if (spec.reasoning) content.push({ type: 'thinking', thinking: spec.reasoning.chunks.join(''), signature: spec.reasoning.signature });
  if (spec.text) content.push({ type: 'text', text: spec.text.join(''), citations: null });
  for (const tool of spec.tools ?? []) content.push({ type: 'tool_use', id: tool.id, name: tool.name, input: JSON.parse(tool.args.join('')) as JsonObject, caller: { type: 'direct' } });
  return {
    id: 'msg_019Q1hrJbZG26Fb9BQhrkHEr',
    type: 'message',
    role: 'assistant',
    model: 'claude-opus-4-8',
    content,
    stop_reason: spec.stop,
    stop_sequence: spec.stopSequence ?? null,
    stop_details: null,
    container: null,
    usage: { ...messagesUsage(spec, spec.usage.output), service_tier: 'standard' },
  };
}

export function messagesProviderStream(spec: AnswerSpec): SseEvent[] {
  const events: SseEvent[] = [
    named({
      type: 'message_start',
      message: {
        id: 'msg_019Q1hrJbZG26Fb9BQhrkHEr',
        type: 'message',
        role: 'assistant',
        model: 'claude-opus-4-8',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...messagesUsage(spec, 1), service_tier: 'standard' },
      },
    }),
  ];
  let index = 0;
  if (spec.reasoning) {
    events.push(named({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    for (const piece of spec.reasoning.chunks) events.push(named({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } }));
    events.push(named({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: spec.reasoning.signature } }));
    events.push(named({ type: 'content_block_stop', index }));
    index++;
  }
  if (spec.text) {
    events.push(named({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
    events.push({ event: 'ping', data: '{"type": "ping"}' });
    for (const piece of spec.text) events.push(named({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }));
    if (spec.failMidStream) {
      events.push(named({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
      return events;
    }
    events.push(named({ type: 'content_block_stop', index }));
    index++;
  }
  for (const tool of spec.tools ?? []) {
    events.push(named({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: tool.id, name: tool.name, input: {} } }));
    for (const piece of tool.args) events.push(named({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }));
    events.push(named({ type: 'content_block_stop', index }));
    index++;
  }
  const finalUsage: JsonObject = spec.usage.reasoning > 0 ? { output_tokens: spec.usage.output, output_tokens_details: { thinking_tokens: spec.usage.reasoning } } : { output_tokens: spec.usage.output };
  events.push(named({ type: 'message_delta', delta: { stop_reason: spec.stop, stop_sequence: spec.stopSequence ?? null }, usage: finalUsage }));
  events.push(named({ type: 'message_stop' }));
  return events;
}
