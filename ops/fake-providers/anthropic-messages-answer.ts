import type { SseEvent } from '../../src/formats/sse-event.js';
import { stringField } from './request-fields.js';
import {
  answerFinish,
  answerText,
  answerUsage,
  fakeId,
  splitText,
  toolArguments,
  toolInput,
  type ScriptedAnswer,
  type ScriptedFinish,
  type ScriptedUsage,
} from './scripted-answer.js';

// Shapes: wire-formats.md section 2 ([ANT-SDK] Message, RawMessageStreamEvent and its fixtures).

const STOP_REASON: Record<ScriptedFinish, string> = { end: 'end_turn', stop_sequence: 'stop_sequence', max_tokens: 'max_tokens', tool_calls: 'tool_use' };

type Block = Record<string, unknown>;

interface PlannedBlocks {
  readonly thinking?: { readonly text: string; readonly signature: string };
  readonly text?: string;
  readonly tools: ReadonlyArray<{ readonly id: string; readonly name: string; readonly input: Readonly<Record<string, unknown>>; readonly json: string }>;
}

function plan(answer: ScriptedAnswer): PlannedBlocks {
  const text = answerText(answer);
  return {
    thinking: answer.reasoning === undefined ? undefined : { text: answer.reasoning, signature: Buffer.from(`fake-signature:${answer.reasoning.length}`).toString('base64') },
    text: text === '' && answer.toolCalls?.length ? undefined : text,
    tools: (answer.toolCalls ?? []).map((call) => ({ id: call.id ?? fakeId('toolu_fake'), name: call.name, input: toolInput(call), json: toolArguments(call) })),
  };
}

// A text block that cites nothing comes without `citations` (the SDK types say `| null`, but the Vercel AI
// SDK's schema takes only an array or nothing, and it works against the API).
function blocks(planned: PlannedBlocks): Block[] {
  return [
    ...(planned.thinking ? [{ type: 'thinking', thinking: planned.thinking.text, signature: planned.thinking.signature }] : []),
    ...(planned.text !== undefined ? [{ type: 'text', text: planned.text }] : []),
    ...planned.tools.map((tool) => ({ type: 'tool_use', id: tool.id, name: tool.name, input: tool.input })),
  ];
}

/** The usage of the whole answer, or (`start`) of `message_start`: an output of 1 and no thinking yet. */
function messagesUsage(usage: ScriptedUsage, start = false): Record<string, unknown> {
  const writes = usage.cacheWriteInputTokens ?? 0;
  const oneHour = usage.cacheWrite1hInputTokens ?? 0;
  return {
    input_tokens: usage.inputTokens,
    cache_creation_input_tokens: writes,
    cache_read_input_tokens: usage.cachedInputTokens ?? 0,
    cache_creation: { ephemeral_5m_input_tokens: writes - oneHour, ephemeral_1h_input_tokens: oneHour },
    output_tokens: start ? 1 : usage.outputTokens,
    ...(start ? {} : thinking(usage)),
    service_tier: 'standard',
  };
}

/** MessageDeltaUsage: cumulative counts, no service tier, no split of the cache writes. */
function deltaUsage(usage: ScriptedUsage): Record<string, unknown> {
  if (usage.messageDelta === 'output') return { output_tokens: usage.outputTokens, ...thinking(usage) };
  return {
    input_tokens: usage.inputTokens,
    cache_creation_input_tokens: usage.cacheWriteInputTokens ?? 0,
    cache_read_input_tokens: usage.cachedInputTokens ?? 0,
    output_tokens: usage.outputTokens,
    ...thinking(usage),
  };
}

function thinking(usage: ScriptedUsage): Record<string, unknown> {
  return usage.reasoningTokens === undefined ? {} : { output_tokens_details: { thinking_tokens: usage.reasoningTokens } };
}

function stopSequence(answer: ScriptedAnswer): string | null {
  return answerFinish(answer) === 'stop_sequence' ? (answer.stopSequence ?? '###') : null;
}

/** `usage: null` leaves usage out entirely: the case the gateway must count for itself (the SDK would reject it). */
export function messagesAnswer(answer: ScriptedAnswer, request: unknown): Record<string, unknown> {
  const usage = answerUsage(answer);
  return {
    id: fakeId('msg_fake'),
    type: 'message',
    role: 'assistant',
    model: answer.model ?? stringField(request, 'model') ?? 'fake-model',
    content: blocks(plan(answer)),
    stop_reason: STOP_REASON[answerFinish(answer)],
    stop_sequence: stopSequence(answer),
    ...(usage ? { usage: messagesUsage(usage) } : {}),
  };
}

/**
 * message_start (content [], output_tokens 1) → per block start / deltas / stop (a ping after the first
 * start, as the API does) → message_delta with the stop reason and cumulative usage → message_stop.
 */
export function messagesEvents(answer: ScriptedAnswer, request: unknown): SseEvent[] {
  const planned = plan(answer);
  const usage = answerUsage(answer);
  const events: SseEvent[] = [];
  const emit = (type: string, payload: Record<string, unknown>): void => {
    events.push({ event: type, data: JSON.stringify({ type, ...payload }) });
  };
  emit('message_start', {
    message: {
      id: fakeId('msg_fake'),
      type: 'message',
      role: 'assistant',
      model: answer.model ?? stringField(request, 'model') ?? 'fake-model',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      ...(usage ? { usage: messagesUsage(usage.messageStart ?? usage, true) } : {}),
    },
  });
  let index = 0;
  const block = (start: Block, deltas: Block[]): void => {
    emit('content_block_start', { index, content_block: start });
    if (index === 0) emit('ping', {});
    for (const delta of deltas) emit('content_block_delta', { index, delta });
    emit('content_block_stop', { index });
    index++;
  };
  if (planned.thinking) {
    const deltas: Block[] = splitText(planned.thinking.text).map((thinking) => ({ type: 'thinking_delta', thinking }));
    deltas.push({ type: 'signature_delta', signature: planned.thinking.signature });
    block({ type: 'thinking', thinking: '', signature: '' }, deltas);
  }
  if (planned.text !== undefined) {
    block({ type: 'text', text: '' }, splitText(planned.text, answer.deltas).map((text) => ({ type: 'text_delta', text })));
  }
  for (const tool of planned.tools) {
    const pieces = ['', ...splitText(tool.json, 3)];
    block({ type: 'tool_use', id: tool.id, name: tool.name, input: {} }, pieces.map((partial_json) => ({ type: 'input_json_delta', partial_json })));
  }
  emit('message_delta', {
    delta: { stop_reason: STOP_REASON[answerFinish(answer)], stop_sequence: stopSequence(answer) },
    ...(usage ? { usage: deltaUsage(usage) } : {}),
  });
  emit('message_stop', {});
  return events;
}

export function messagesStreamErrorEvent(): SseEvent {
  return { event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }) };
}

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** [ANT-SDK shared.ts ErrorResponse] with the type the docs give for the status. */
export function messagesErrorBody(status: number, message: string, requestId: string): Record<string, unknown> {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message }, request_id: requestId };
}
