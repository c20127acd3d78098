import type { SseEvent } from '../../src/formats/sse-event.js';
import { arrayField, booleanField, numberField, recordOf, stringField } from './request-fields.js';
import {
  TINY_PNG_BASE64,
  answerFinish,
  answerText,
  answerUsage,
  fakeId,
  splitText,
  toolArguments,
  type ScriptedAnswer,
  type ScriptedFinish,
  type ScriptedUsage,
} from './scripted-answer.js';

// Shapes: wire-formats.md section 1 ([OAI-SPEC] CreateChatCompletionResponse / …StreamResponse).

const FINISH: Record<ScriptedFinish, string> = { end: 'stop', stop_sequence: 'stop', max_tokens: 'length', tool_calls: 'tool_calls' };

export function chatUsage(usage: ScriptedUsage): Record<string, unknown> {
  const reasoning = usage.reasoningTokens ?? 0;
  const completion = usage.reasoningBesideOutput ? usage.outputTokens - reasoning : usage.outputTokens;
  const prompt: Record<string, unknown> = { cached_tokens: usage.cachedInputTokens ?? 0, audio_tokens: usage.audioInputTokens ?? 0 };
  if (usage.cacheWriteInputTokens !== undefined) prompt.cache_write_tokens = usage.cacheWriteInputTokens;
  if (usage.cacheWrite1hInputTokens !== undefined) {
    const writes = usage.cacheWriteInputTokens ?? usage.cacheWrite1hInputTokens;
    prompt.cache_creation_token_details = { ephemeral_5m_input_tokens: writes - usage.cacheWrite1hInputTokens, ephemeral_1h_input_tokens: usage.cacheWrite1hInputTokens };
  }
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: completion,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: prompt,
    completion_tokens_details: { reasoning_tokens: reasoning, audio_tokens: usage.audioOutputTokens ?? 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/** Images come back when scripted, or when the request asks for the image modality (OpenRouter-style image models). */
function chatImages(answer: ScriptedAnswer, request: unknown): Array<Record<string, unknown>> | undefined {
  const images = answer.images ?? (arrayField(request, 'modalities')?.includes('image') ? [TINY_PNG_BASE64] : undefined);
  return images?.map((base64, index) => ({ type: 'image_url', image_url: { url: `data:image/png;base64,${base64}` }, index }));
}

/** Chat's `n`: as OpenAI does, that many choices, here each the same scripted answer (usage stays as scripted). */
function choiceCount(request: unknown): number {
  return numberField(request, 'n') ?? 1;
}

function callIds(answer: ScriptedAnswer): string[] {
  return (answer.toolCalls ?? []).map((call) => call.id ?? fakeId('call_'));
}

export function chatCompletion(answer: ScriptedAnswer, request: unknown): Record<string, unknown> {
  const text = answerText(answer);
  const ids = callIds(answer);
  const toolCalls = (answer.toolCalls ?? []).map((call, index) => ({
    id: ids[index],
    type: 'function',
    function: { name: call.name, arguments: toolArguments(call) },
  }));
  const images = chatImages(answer, request);
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
    refusal: null,
    annotations: [],
  };
  if (answer.reasoning !== undefined) message.reasoning = answer.reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (images) message.images = images;
  const usage = answerUsage(answer);
  return {
    id: fakeId('chatcmpl-fake'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: answer.model ?? stringField(request, 'model') ?? 'fake-model',
    choices: Array.from({ length: choiceCount(request) }, (_, index) => ({ index, message, logprobs: null, finish_reason: FINISH[answerFinish(answer)] })),
    ...(usage ? { usage: chatUsage(usage) } : {}),
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

/**
 * The chunk sequence: role, reasoning, text, images, each tool call (id + name first, then argument
 * pieces), the finish chunk, then — only with `stream_options.include_usage` — the usage chunk with empty
 * `choices` (every other chunk then carries `usage: null`), then `[DONE]`. With `n` > 1 every chunk comes
 * once for each choice, interleaved (choice 0, 1, … of the first piece, then of the next), as OpenAI's do.
 */
export function chatCompletionChunks(answer: ScriptedAnswer, request: unknown): SseEvent[] {
  const includeUsage = booleanField(recordOf(request)?.stream_options, 'include_usage');
  const base = {
    id: fakeId('chatcmpl-fake'),
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: answer.model ?? stringField(request, 'model') ?? 'fake-model',
    system_fingerprint: 'fp_fake',
  };
  const choices = choiceCount(request);
  const events: SseEvent[] = [];
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): void => {
    for (let index = 0; index < choices; index++) {
      events.push({
        data: JSON.stringify({
          ...base,
          choices: [{ index, delta, logprobs: null, finish_reason: finishReason }],
          ...(includeUsage ? { usage: null } : {}),
        }),
      });
    }
  };
  chunk({ role: 'assistant', content: '', refusal: null });
  if (answer.reasoning !== undefined) for (const piece of splitText(answer.reasoning)) chunk({ reasoning: piece });
  for (const piece of splitText(answerText(answer), answer.deltas)) chunk({ content: piece });
  const images = chatImages(answer, request);
  if (images) chunk({ images });
  const ids = callIds(answer);
  (answer.toolCalls ?? []).forEach((call, index) => {
    chunk({ tool_calls: [{ index, id: ids[index], type: 'function', function: { name: call.name, arguments: '' } }] });
    for (const piece of splitText(toolArguments(call), 3)) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  chunk({}, FINISH[answerFinish(answer)]);
  const usage = answerUsage(answer);
  if (includeUsage && usage) events.push({ data: JSON.stringify({ ...base, choices: [], usage: chatUsage(usage) }) });
  events.push({ data: '[DONE]' });
  return events;
}

/** [OAI-NODE streaming.ts] a `data:` object with an `error` key makes the SDK throw: that is how a mid-stream error looks. */
export function chatStreamErrorEvent(): SseEvent {
  return { data: JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } }) };
}
