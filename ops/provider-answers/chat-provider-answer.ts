import type { SseEvent } from '../../src/formats/sse-event.js';
import type { JsonObject } from '../../src/formats/json-value.js';
import { CREATED, data, type AnswerSpec } from './answer-spec.js';

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
