import { isJsonObject, tryParseJson, type JsonObject, type JsonValue } from '../json-value.js';
import type { CacheControl, CanonicalRequest, ContentPart, ImagePart } from '../canonical/canonical-request.js';
import { carryExtras } from '../canonical/extra-fields.js';
import { BUDGET_OF_EFFORT } from '../canonical/reasoning-effort.js';
import type { RenderedRequest, RequestRenderOptions } from '../canonical/rendered-request.js';
import { invalidForTarget } from '../canonical/schema-validation.js';

/** No other format shares a top-level field with messages beyond those the canonical model names. */
const SHARED_EXTRAS = {} as const;

const MIN_THINKING_BUDGET = 1024;
const DEFAULT_MAX_TOKENS = 4096;

function withCache(block: JsonObject, cache: CacheControl | undefined): JsonObject {
  if (cache) block.cache_control = { ...cache };
  return block;
}

function imageBlock(part: ImagePart): JsonObject {
  const source: JsonObject =
    part.source.kind === 'base64' ? { type: 'base64', media_type: part.source.mediaType, data: part.source.data } : { type: 'url', url: part.source.url };
  return withCache({ type: 'image', source }, part.cacheControl);
}

/** Tool arguments are JSON text in chat and responses; messages wants the object (7.2: `{}` when empty). */
function toolInput(args: string, param: string): JsonObject {
  if (args.trim() === '') return {};
  const parsed = tryParseJson(args);
  if (!isJsonObject(parsed)) throw invalidForTarget('tool call arguments must be a JSON object to be sent to this model', param);
  return parsed;
}

function block(part: ContentPart, param: string, dropped: string[]): JsonObject | undefined {
  switch (part.type) {
    case 'text':
      // "text content blocks must be non-empty" (Anthropic 400).
      return part.text === '' ? undefined : withCache({ type: 'text', text: part.text }, part.cacheControl);
    case 'image':
      return imageBlock(part);
    case 'tool_call':
      return { type: 'tool_use', id: part.id, name: part.name, input: toolInput(part.arguments, param) };
    case 'tool_result': {
      const content: JsonValue =
        typeof part.content === 'string'
          ? part.content
          : part.content.map((item) => (item.type === 'text' ? { type: 'text', text: item.text } : imageBlock(item)));
      const result: JsonObject = { type: 'tool_result', tool_use_id: part.callId, content };
      if (part.isError) result.is_error = true;
      return withCache(result, part.cacheControl);
    }
    case 'reasoning':
      // A thinking block is only accepted back with the signature that came with it.
      if (part.signature === undefined) {
        dropped.push('messages.reasoning');
        return undefined;
      }
      return { type: 'thinking', thinking: part.text, signature: part.signature };
    case 'redacted_reasoning':
      return { type: 'redacted_thinking', data: part.data };
    case 'opaque':
      dropped.push(`messages.${part.kind}`);
      return undefined;
  }
}

/**
 * Canonical → Anthropic messages request. System instructions become top-level `system` blocks, in order;
 * tool results become `tool_result` blocks of a user turn, before that turn's other content; consecutive
 * turns of one role are merged (messages alternates roles; LiteLLM `anthropic_messages_pt`).
 */
export function renderMessagesRequest(request: CanonicalRequest, options: RequestRenderOptions): RenderedRequest {
  const dropped: string[] = [];
  const turns: Array<{ role: 'user' | 'assistant'; content: JsonObject[] }> = [];
  request.messages.forEach((message, messageIndex) => {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks: JsonObject[] = [];
    for (const part of message.content) {
      const rendered = block(part, `messages[${messageIndex}]`, dropped);
      if (rendered) blocks.push(rendered);
    }
    if (blocks.length === 0) return;
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  });
  const maxTokens = request.maxOutputTokens ?? options.maxOutputTokensFallback ?? DEFAULT_MAX_TOKENS;
  const body: JsonObject = { model: options.model, max_tokens: maxTokens, messages: turns };
  if (request.system.length > 0) body.system = request.system.map((item) => withCache({ type: 'text', text: item.text }, item.cacheControl));
  if (request.stopSequences.length > 0) body.stop_sequences = [...request.stopSequences];
  const thinking = thinkingBudget(request, maxTokens, dropped);
  if (thinking !== undefined) body.thinking = { type: 'enabled', budget_tokens: thinking };
  if (request.temperature !== undefined) {
    // "Thinking isn't compatible with temperature or top_k modifications" (Anthropic extended thinking docs).
    if (thinking === undefined) body.temperature = Math.min(request.temperature, 1);
    else dropped.push('temperature');
  }
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => {
      const schema: JsonObject = tool.parameters.type === 'object' ? tool.parameters : { type: 'object', properties: {}, ...tool.parameters };
      const rendered: JsonObject = { name: tool.name, input_schema: schema };
      if (tool.description) rendered.description = tool.description;
      return withCache(rendered, tool.cacheControl);
    });
  }
  const choice = toolChoice(request);
  if (choice) body.tool_choice = choice;
  if (request.responseFormat) {
    if (request.responseFormat.type === 'json_schema') body.output_config = { format: { type: 'json_schema', schema: request.responseFormat.schema } };
    else if (request.responseFormat.type === 'json_object') dropped.push('response_format');
  }
  if (request.user) body.metadata = { user_id: request.user };
  if (request.stream) body.stream = true;
  carryExtras(request.extra, SHARED_EXTRAS, body, dropped);
  return { body, dropped };
}

/** Anthropic wants 1024 ≤ budget_tokens < max_tokens; a cap too small for any thinking drops it. */
function thinkingBudget(request: CanonicalRequest, maxTokens: number, dropped: string[]): number | undefined {
  const reasoning = request.reasoning;
  if (!reasoning || reasoning.effort === 'none') return undefined;
  const wanted = reasoning.budgetTokens ?? (reasoning.effort ? BUDGET_OF_EFFORT[reasoning.effort] : undefined);
  if (wanted === undefined) return undefined;
  if (maxTokens <= MIN_THINKING_BUDGET) {
    dropped.push('reasoning');
    return undefined;
  }
  return Math.max(MIN_THINKING_BUDGET, Math.min(wanted, maxTokens - 1));
}

/** LiteLLM `_map_tool_choice`: parallel_tool_calls false → disable_parallel_tool_use (not with none). */
function toolChoice(request: CanonicalRequest): JsonObject | undefined {
  const choice = request.toolChoice;
  const disable = request.parallelToolCalls === false && request.tools.length > 0;
  if (!choice) return disable ? { type: 'auto', disable_parallel_tool_use: true } : undefined;
  let rendered: JsonObject;
  switch (choice.type) {
    case 'auto':
      rendered = { type: 'auto' };
      break;
    case 'required':
      rendered = { type: 'any' };
      break;
    case 'none':
      return { type: 'none' };
    case 'tool':
      rendered = { type: 'tool', name: choice.name };
      break;
  }
  if (disable) rendered.disable_parallel_tool_use = true;
  return rendered;
}
