import type { SseEvent } from '../../../src/formats/sse-event.js';
import type { FormatName } from '../../../src/formats/canonical/format-name.js';
import type { JsonObject, JsonValue } from '../../../src/formats/json-value.js';

/** One model answer, described once and written below in each provider's wire shape. */
export interface AnswerSpec {
  readonly name: string;
  readonly reasoning?: { readonly chunks: readonly string[]; readonly signature: string };
  readonly text?: readonly string[];
  readonly tools?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly args: readonly string[] }>;
  readonly stop: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';
  readonly stopSequence?: string;
  /** Whole input (cached + cache write included), as the canonical usage counts it. */
  readonly usage: { readonly input: number; readonly cached: number; readonly cacheWrite: number; readonly output: number; readonly reasoning: number };
  /** The provider fails after streaming its content (mid-stream error). */
  readonly failMidStream?: boolean;
}

const USAGE = { input: 100, cached: 40, cacheWrite: 10, output: 20, reasoning: 0 } as const;

export const ANSWERS: readonly AnswerSpec[] = [
  { name: 'plain text', text: ['Hello', ', ', 'wor', 'ld! "quoted" \\ back\nslash é 😀'], stop: 'end_turn', usage: USAGE },
  {
    name: 'several tool calls',
    text: ['Let me look ', 'both up.'],
    tools: [
      { id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', args: ['', '{"loca', 'tion": "Par', 'is, FR", "unit": "c"}'] },
      { id: 'call_unLAR8MvFNptuiZK6K6HCy5k', name: 'get_time', args: ['{"timezone":', ' "Europe/Paris"}'] },
    ],
    stop: 'tool_use',
    usage: USAGE,
  },
  { name: 'stop sequence', text: ['1, 2, 3'], stop: 'stop_sequence', stopSequence: '4', usage: USAGE },
  { name: 'max tokens reached', text: ['This answer is cut'], stop: 'max_tokens', usage: USAGE },
  {
    name: 'reasoning',
    reasoning: { chunks: ['Let me think', ' about 2+2.'], signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
    text: ['2 + 2 = 4.'],
    stop: 'end_turn',
    usage: { ...USAGE, reasoning: 12 },
  },
  {
    name: 'reasoning only (max_tokens spent on thinking)',
    reasoning: { chunks: ['Step one', ', step two'], signature: 'EqQBCgIYAhIMsig2' },
    stop: 'max_tokens',
    usage: { ...USAGE, output: 20, reasoning: 20 },
  },
  { name: 'mid-stream error', text: ['Partial an', 'swer'], stop: 'end_turn', usage: USAGE, failMidStream: true },
];

const CREATED = 1_741_290_958;
const data = (value: JsonValue): string => JSON.stringify(value);
const named = (value: JsonObject): SseEvent => ({ event: String(value.type), data: data(value) });

// ---------------------------------------------------------------- chat (wire-formats.md 1.2–1.4, OpenRouter 6)

const chatFinish = (spec: AnswerSpec) =>
  spec.stop === 'max_tokens' ? 'length' : spec.stop === 'tool_use' ? 'tool_calls' : 'stop';

function chatUsage(spec: AnswerSpec): JsonObject {
  const u = spec.usage;
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cached_tokens: u.cached, cache_write_tokens: u.cacheWrite, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

export function chatProviderResponse(spec: AnswerSpec): JsonObject {
  const message: JsonObject = { role: 'assistant', content: spec.text ? spec.text.join('') : null, refusal: null, annotations: [] };
  if (spec.reasoning) {
    message.reasoning = spec.reasoning.chunks.join('');
    message.reasoning_details = [{ type: 'reasoning.text', text: spec.reasoning.chunks.join(''), signature: spec.reasoning.signature, format: 'anthropic-claude-v1', index: 0 }];
  }
  if (spec.tools) {
    message.tool_calls = spec.tools.map((tool) => ({ id: tool.id, type: 'function', function: { name: tool.name, arguments: tool.args.join('') } }));
  }
  return {
    id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
    object: 'chat.completion',
    created: CREATED,
    model: 'gpt-5.4-2026-03-05',
    choices: [{ index: 0, message, logprobs: null, finish_reason: chatFinish(spec) }],
    usage: chatUsage(spec),
    service_tier: 'default',
    system_fingerprint: 'fp_44709d6fcb',
  };
}

export function chatProviderStream(spec: AnswerSpec): SseEvent[] {
  let obfuscation = 0;
  // Key order as OpenAI sends it; `usage: null` on every chunk because the gateway asked for usage.
  const chunk = (delta: JsonObject, finish: string | null = null): SseEvent => ({
    data: data({
      id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
      object: 'chat.completion.chunk',
      created: CREATED,
      model: 'gpt-5.4-2026-03-05',
      service_tier: 'default',
      system_fingerprint: 'fp_44709d6fcb',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      usage: null,
      obfuscation: `Ob${obfuscation++}`,
    }),
  });
  const events: SseEvent[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  if (spec.reasoning) {
    for (const piece of spec.reasoning.chunks) events.push(chunk({ reasoning: piece }));
    events.push(chunk({ reasoning_details: [{ type: 'reasoning.text', text: '', signature: spec.reasoning.signature, format: 'anthropic-claude-v1', index: 0 }] }));
  }
  for (const piece of spec.text ?? []) events.push(chunk({ content: piece }));
  spec.tools?.forEach((tool, index) => {
    events.push(chunk({ tool_calls: [{ index, id: tool.id, type: 'function', function: { name: tool.name, arguments: '' } }] }));
    for (const piece of tool.args) if (piece !== '') events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  if (spec.failMidStream) {
    // OpenRouter's mid-stream error chunk (wire-formats.md 6), then the stream ends.
    events.push({
      data: data({
        id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
        object: 'chat.completion.chunk',
        created: CREATED,
        model: 'gpt-5.4-2026-03-05',
        error: { code: 502, message: 'Provider disconnected' },
        choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
      }),
    });
    return events;
  }
  events.push(chunk({}, chatFinish(spec)));
  events.push({
    data: data({
      id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
      object: 'chat.completion.chunk',
      created: CREATED,
      model: 'gpt-5.4-2026-03-05',
      service_tier: 'default',
      system_fingerprint: 'fp_44709d6fcb',
      choices: [],
      usage: chatUsage(spec),
      obfuscation: 'ObU',
    }),
  });
  events.push({ data: '[DONE]' });
  return events;
}

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

export function providerResponse(format: FormatName, spec: AnswerSpec): JsonObject {
  switch (format) {
    case 'chat':
      return chatProviderResponse(spec);
    case 'messages':
      return messagesProviderResponse(spec);
    case 'responses':
      return responsesProviderResponse(spec);
  }
}

export function providerStream(format: FormatName, spec: AnswerSpec): SseEvent[] {
  switch (format) {
    case 'chat':
      return chatProviderStream(spec);
    case 'messages':
      return messagesProviderStream(spec);
    case 'responses':
      return responsesProviderStream(spec);
  }
}

/** A provider's own error answer (HTTP status and body), in its format. */
export const PROVIDER_ERRORS: Readonly<Record<FormatName, { status: number; body: JsonObject }>> = {
  chat: { status: 429, body: { error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } } },
  messages: { status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' } },
  responses: { status: 400, body: { error: { message: "Invalid 'input[0].content': empty array.", type: 'invalid_request_error', param: 'input[0].content', code: 'empty_array' } } },
};
