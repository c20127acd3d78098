import type { SseEvent } from '../../src/formats/sse-event.js';
import type { JsonObject } from '../../src/formats/json-value.js';
import { CREATED, data, type AnswerSpec } from './answer-spec.js';

// ---------------------------------------------------------------- responses (wire-formats.md 3.2–3.3)

function responsesUsage(spec: AnswerSpec): JsonObject {
  const u = spec.usage;
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cached, cache_write_tokens: u.cacheWrite },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.input + u.output,
  };
}

function responsesOutput(spec: AnswerSpec): JsonObject[] {
  const output: JsonObject[] = [];
  if (spec.reasoning) {
    output.push({ id: 'rs_67c9fdcf37fc8190', type: 'reasoning', summary: [{ type: 'summary_text', text: spec.reasoning.chunks.join('') }], encrypted_content: spec.reasoning.signature });
  }
  if (spec.text) {
    output.push({
      id: 'msg_67c9fdcf37fc8190ba82116e33fb28c5',
      type: 'message',
      status: spec.stop === 'max_tokens' ? 'incomplete' : 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: spec.text.join(''), annotations: [], logprobs: [] }],
    });
  }
  spec.tools?.forEach((tool, index) => {
    output.push({ id: `fc_67ca09c5efe0819${index}`, type: 'function_call', status: 'completed', call_id: tool.id, name: tool.name, arguments: tool.args.join('') });
  });
  return output;
}

function responsesObject(spec: AnswerSpec, status: string, output: JsonObject[], usage: JsonObject | null): JsonObject {
  return {
    id: 'resp_67c9fdcecf488190bdd9a0a5',
    object: 'response',
    created_at: CREATED,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    max_output_tokens: null,
    model: 'gpt-5.4-2026-03-05',
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage,
    user: null,
    metadata: {},
  };
}

export function responsesProviderResponse(spec: AnswerSpec): JsonObject {
  return responsesObject(spec, spec.stop === 'max_tokens' ? 'incomplete' : 'completed', responsesOutput(spec), responsesUsage(spec));
}

export function responsesProviderStream(spec: AnswerSpec): SseEvent[] {
  let sequence = 0;
  const events: SseEvent[] = [];
  // OpenAI puts sequence_number second, after type.
  const push = (type: string, fields: JsonObject) => events.push({ event: type, data: data({ type, sequence_number: sequence++, ...fields }) });
  push('response.created', { response: responsesObject(spec, 'in_progress', [], null) });
  push('response.in_progress', { response: responsesObject(spec, 'in_progress', [], null) });
  const output = responsesOutput(spec);
  output.forEach((item, outputIndex) => {
    const id = String(item.id);
    switch (item.type) {
      case 'reasoning': {
        push('response.output_item.added', { output_index: outputIndex, item: { id, type: 'reasoning', summary: [] } });
        push('response.reasoning_summary_part.added', { item_id: id, output_index: outputIndex, summary_index: 0, part: { type: 'summary_text', text: '' } });
        for (const piece of spec.reasoning!.chunks) push('response.reasoning_summary_text.delta', { item_id: id, output_index: outputIndex, summary_index: 0, delta: piece, obfuscation: 'x' });
        const text = spec.reasoning!.chunks.join('');
        push('response.reasoning_summary_text.done', { item_id: id, output_index: outputIndex, summary_index: 0, text });
        push('response.reasoning_summary_part.done', { item_id: id, output_index: outputIndex, summary_index: 0, part: { type: 'summary_text', text } });
        push('response.output_item.done', { output_index: outputIndex, item });
        return;
      }
      case 'message': {
        push('response.output_item.added', { output_index: outputIndex, item: { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } });
        push('response.content_part.added', { item_id: id, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
        for (const piece of spec.text!) push('response.output_text.delta', { item_id: id, output_index: outputIndex, content_index: 0, delta: piece, logprobs: [], obfuscation: 'abc' });
        if (spec.failMidStream) return;
        const text = spec.text!.join('');
        push('response.output_text.done', { item_id: id, output_index: outputIndex, content_index: 0, text, logprobs: [] });
        push('response.content_part.done', { item_id: id, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text, annotations: [], logprobs: [] } });
        push('response.output_item.done', { output_index: outputIndex, item });
        return;
      }
      case 'function_call': {
        const tool = spec.tools!.find((candidate) => candidate.id === item.call_id)!;
        push('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } });
        for (const piece of tool.args) if (piece !== '') push('response.function_call_arguments.delta', { item_id: id, output_index: outputIndex, delta: piece, obfuscation: 'x' });
        push('response.function_call_arguments.done', { item_id: id, name: tool.name, output_index: outputIndex, arguments: tool.args.join('') });
        push('response.output_item.done', { output_index: outputIndex, item });
        return;
      }
    }
  });
  if (spec.failMidStream) {
    push('error', { code: 'server_error', message: 'The server had an error while processing your request', param: null });
    return events;
  }
  const status = spec.stop === 'max_tokens' ? 'incomplete' : 'completed';
  push(`response.${status}`, { response: responsesObject(spec, status, output, responsesUsage(spec)) });
  return events;
}
