import type { SseEvent } from '../../src/formats/sse-event.js';
import { arrayField, numberField, recordOf, stringField } from './request-fields.js';
import {
  answerFinish,
  answerText,
  answerUsage,
  fakeId,
  splitText,
  toolArguments,
  type ScriptedAnswer,
  type ScriptedUsage,
} from './scripted-answer.js';

// Shapes: wire-formats.md section 3 ([OAI-SPEC] Response, ResponseStreamEvent); every stream event carries
// `sequence_number`, and the stream ends with response.completed / response.incomplete, no [DONE].

type Item = Record<string, unknown>;

function responsesUsage(usage: ScriptedUsage): Record<string, unknown> {
  const input: Record<string, unknown> = { cached_tokens: usage.cachedInputTokens ?? 0 };
  if (usage.cacheWriteInputTokens !== undefined) input.cache_write_tokens = usage.cacheWriteInputTokens;
  if (usage.audioInputTokens !== undefined) input.audio_tokens = usage.audioInputTokens;
  const output: Record<string, unknown> = { reasoning_tokens: usage.reasoningTokens ?? 0 };
  if (usage.audioOutputTokens !== undefined) output.audio_tokens = usage.audioOutputTokens;
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: input,
    output_tokens: usage.outputTokens,
    output_tokens_details: output,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

interface PlannedItems {
  readonly reasoning?: { readonly id: string; readonly text: string };
  readonly message?: { readonly id: string; readonly text: string };
  readonly calls: ReadonlyArray<{ readonly id: string; readonly callId: string; readonly name: string; readonly arguments: string }>;
  readonly images: ReadonlyArray<{ readonly id: string; readonly result: string }>;
}

function plan(answer: ScriptedAnswer): PlannedItems {
  const text = answerText(answer);
  return {
    reasoning: answer.reasoning === undefined ? undefined : { id: fakeId('rs_fake'), text: answer.reasoning },
    message: text === '' && answer.toolCalls?.length ? undefined : { id: fakeId('msg_fake'), text },
    calls: (answer.toolCalls ?? []).map((call) => ({ id: fakeId('fc_fake'), callId: call.id ?? fakeId('call_'), name: call.name, arguments: toolArguments(call) })),
    images: (answer.images ?? []).map((result) => ({ id: fakeId('ig_fake'), result })),
  };
}

const reasoningItem = (item: NonNullable<PlannedItems['reasoning']>): Item => ({ id: item.id, type: 'reasoning', summary: [{ type: 'summary_text', text: item.text }] });
const outputText = (text: string): Item => ({ type: 'output_text', text, annotations: [], logprobs: [] });
const messageItem = (item: NonNullable<PlannedItems['message']>, status = 'completed'): Item => ({
  id: item.id,
  type: 'message',
  status,
  role: 'assistant',
  content: status === 'completed' ? [outputText(item.text)] : [],
});
const callItem = (call: PlannedItems['calls'][number], status = 'completed'): Item => ({
  id: call.id,
  type: 'function_call',
  status,
  call_id: call.callId,
  name: call.name,
  arguments: status === 'completed' ? call.arguments : '',
});
const imageItem = (image: PlannedItems['images'][number]): Item => ({ id: image.id, type: 'image_generation_call', status: 'completed', result: image.result });

function completedOutput(items: PlannedItems): Item[] {
  return [
    ...(items.reasoning ? [reasoningItem(items.reasoning)] : []),
    ...(items.message ? [messageItem(items.message)] : []),
    ...items.calls.map((call) => callItem(call)),
    ...items.images.map(imageItem),
  ];
}

function responseObject(answer: ScriptedAnswer, request: unknown, id: string, createdAt: number, final: { output: Item[] } | undefined): Item {
  const incomplete = answerFinish(answer) === 'max_tokens';
  const usage = answerUsage(answer);
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: final ? (incomplete ? 'incomplete' : 'completed') : 'in_progress',
    completed_at: final && !incomplete ? createdAt : null,
    error: null,
    incomplete_details: final && incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: stringField(request, 'instructions') ?? null,
    max_output_tokens: numberField(request, 'max_output_tokens') ?? null,
    model: answer.model ?? stringField(request, 'model') ?? 'fake-model',
    output: final?.output ?? [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    // the request's output format, as OpenAI echoes it (clients read it back)
    text: recordOf(recordOf(request)?.text) ?? { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: arrayField(request, 'tools') ?? [],
    top_p: 1,
    truncation: 'disabled',
    usage: final && usage ? responsesUsage(usage) : null,
    user: null,
    metadata: recordOf(recordOf(request)?.metadata) ?? {},
  };
}

export function responsesAnswer(answer: ScriptedAnswer, request: unknown): Item {
  const items = plan(answer);
  return responseObject(answer, request, fakeId('resp_fake'), Math.floor(Date.now() / 1000), { output: completedOutput(items) });
}

export function responsesEvents(answer: ScriptedAnswer, request: unknown): SseEvent[] {
  const items = plan(answer);
  const id = fakeId('resp_fake');
  const createdAt = Math.floor(Date.now() / 1000);
  const events: SseEvent[] = [];
  const emit = (type: string, payload: Record<string, unknown>): void => {
    events.push({ event: type, data: JSON.stringify({ type, sequence_number: events.length, ...payload }) });
  };
  emit('response.created', { response: responseObject(answer, request, id, createdAt, undefined) });
  emit('response.in_progress', { response: responseObject(answer, request, id, createdAt, undefined) });
  let outputIndex = 0;
  if (items.reasoning) {
    const item = items.reasoning;
    const at = { item_id: item.id, output_index: outputIndex, summary_index: 0 };
    emit('response.output_item.added', { output_index: outputIndex, item: { id: item.id, type: 'reasoning', summary: [] } });
    emit('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
    for (const delta of splitText(item.text)) emit('response.reasoning_summary_text.delta', { ...at, delta });
    emit('response.reasoning_summary_text.done', { ...at, text: item.text });
    emit('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text: item.text } });
    emit('response.output_item.done', { output_index: outputIndex, item: reasoningItem(item) });
    outputIndex++;
  }
  if (items.message) {
    const item = items.message;
    const at = { item_id: item.id, output_index: outputIndex, content_index: 0 };
    emit('response.output_item.added', { output_index: outputIndex, item: messageItem(item, 'in_progress') });
    emit('response.content_part.added', { ...at, part: outputText('') });
    for (const delta of splitText(item.text, answer.deltas)) emit('response.output_text.delta', { ...at, delta, logprobs: [] });
    emit('response.output_text.done', { ...at, text: item.text, logprobs: [] });
    emit('response.content_part.done', { ...at, part: outputText(item.text) });
    emit('response.output_item.done', { output_index: outputIndex, item: messageItem(item) });
    outputIndex++;
  }
  for (const call of items.calls) {
    emit('response.output_item.added', { output_index: outputIndex, item: callItem(call, 'in_progress') });
    for (const delta of splitText(call.arguments, 3)) emit('response.function_call_arguments.delta', { item_id: call.id, output_index: outputIndex, delta });
    emit('response.function_call_arguments.done', { item_id: call.id, output_index: outputIndex, name: call.name, arguments: call.arguments });
    emit('response.output_item.done', { output_index: outputIndex, item: callItem(call) });
    outputIndex++;
  }
  for (const image of items.images) {
    emit('response.output_item.added', { output_index: outputIndex, item: { id: image.id, type: 'image_generation_call', status: 'in_progress', result: null } });
    emit('response.output_item.done', { output_index: outputIndex, item: imageItem(image) });
    outputIndex++;
  }
  const final = responseObject(answer, request, id, createdAt, { output: completedOutput(items) });
  emit(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: final });
  return events;
}

/** [OAI-SPEC] the responses stream `error` event is flat: `{type, code, message, param, sequence_number}`. */
export function responsesStreamErrorEvent(sequenceNumber: number): SseEvent {
  return { event: 'error', data: JSON.stringify({ type: 'error', code: 'server_error', message: 'The server had an error while processing your request.', param: null, sequence_number: sequenceNumber }) };
}
