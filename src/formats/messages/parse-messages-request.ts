import { asJsonValue, type JsonObject } from '../json-value.js';
import type {
  CacheControl,
  CanonicalRequest,
  ContentPart,
  ImagePart,
  ReasoningConfig,
  SystemInstruction,
  TextPart,
  ToolChoice,
  ToolDefinition,
  ToolResultPart,
} from '../canonical/canonical-request.js';
import { collectExtras } from '../canonical/extra-fields.js';
import { MessageBuilder } from '../canonical/message-builder.js';
import { parseClientBody } from '../canonical/schema-validation.js';
import {
  isCustomTool,
  isKnownBlock,
  MESSAGES_CANONICAL_FIELDS,
  messagesRequestSchema,
  type MessagesBlock,
  type MessagesKnownBlock,
  type MessagesRequestBody,
} from './messages-request-schema.js';

type CacheControlInput = { type: 'ephemeral'; ttl?: '5m' | '1h' | undefined } | null | undefined;

function cacheControl(value: CacheControlInput): { cacheControl?: CacheControl } {
  if (!value) return {};
  return { cacheControl: value.ttl ? { type: 'ephemeral', ttl: value.ttl } : { type: 'ephemeral' } };
}

type ImageBlock = Extract<MessagesKnownBlock, { type: 'image' }>;

function imagePart(block: ImageBlock): ImagePart | undefined {
  const source = block.source;
  switch (source.type) {
    case 'base64':
      return { type: 'image', source: { kind: 'base64', mediaType: source.media_type, data: source.data }, ...cacheControl(block.cache_control) };
    case 'url':
      return { type: 'image', source: { kind: 'url', url: source.url }, ...cacheControl(block.cache_control) };
    case 'file':
      return undefined;
  }
}

function toolResult(block: Extract<MessagesKnownBlock, { type: 'tool_result' }>): ToolResultPart {
  let content: ToolResultPart['content'] = '';
  if (typeof block.content === 'string') content = block.content;
  else if (block.content) {
    const parts: Array<TextPart | ImagePart> = [];
    for (const item of block.content) {
      if (item.type === 'text' && 'text' in item && typeof item.text === 'string') parts.push({ type: 'text', text: item.text });
      else if (item.type === 'image' && 'source' in item) {
        const image = imagePart(item as ImageBlock);
        if (image) parts.push(image);
      }
    }
    content = parts;
  }
  return { type: 'tool_result', callId: block.tool_use_id, content, isError: block.is_error === true, ...cacheControl(block.cache_control) };
}

function opaque(block: MessagesBlock): ContentPart {
  return { type: 'opaque', format: 'messages', kind: block.type, value: asJsonValue(block) };
}

/** One block of a user or assistant turn; tool results go to their own canonical tool message. */
function convertBlock(block: MessagesBlock, results: ContentPart[], parts: ContentPart[]): void {
  if (!isKnownBlock(block)) return void parts.push(opaque(block));
  switch (block.type) {
    case 'text':
      return void parts.push({ type: 'text', text: block.text, ...cacheControl(block.cache_control) });
    case 'image':
      return void parts.push(imagePart(block) ?? opaque(block));
    case 'tool_use':
      return void parts.push({ type: 'tool_call', id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
    case 'tool_result':
      return void results.push(toolResult(block));
    case 'thinking':
      return void parts.push({ type: 'reasoning', text: block.thinking, signature: block.signature });
    case 'redacted_thinking':
      return void parts.push({ type: 'redacted_reasoning', data: block.data });
  }
}

function convertToolChoice(choice: MessagesRequestBody['tool_choice']): ToolChoice | undefined {
  if (!choice) return undefined;
  switch (choice.type) {
    case 'auto':
    case 'none':
      return { type: choice.type };
    case 'any':
      return { type: 'required' };
    case 'tool':
      return { type: 'tool', name: choice.name };
  }
}

function convertReasoning(request: MessagesRequestBody): ReasoningConfig | undefined {
  const effort = request.output_config?.effort ?? undefined;
  switch (request.thinking?.type) {
    case 'enabled':
      return { budgetTokens: request.thinking.budget_tokens, ...(effort ? { effort } : {}) };
    case 'disabled':
      return { effort: 'none' };
    case 'adaptive':
      return { effort: effort ?? 'medium' };
    case undefined:
      return effort ? { effort } : undefined;
  }
}

/** Client messages body → canonical request. Throws `GatewayError('invalid_request')` naming the field. */
export function parseMessagesRequest(body: unknown): CanonicalRequest {
  const request = parseClientBody(messagesRequestSchema, body);
  const system: SystemInstruction[] = [];
  if (typeof request.system === 'string') {
    if (request.system !== '') system.push({ text: request.system, role: 'system' });
  } else {
    for (const block of request.system ?? []) system.push({ text: block.text, role: 'system', ...cacheControl(block.cache_control) });
  }
  const builder = new MessageBuilder();
  for (const message of request.messages) {
    if (message.role === 'system') {
      const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
      for (const block of blocks) if ('text' in block && typeof block.text === 'string') system.push({ text: block.text, role: 'system' });
      continue;
    }
    if (typeof message.content === 'string') {
      builder.add(message.role, [{ type: 'text', text: message.content }]);
      continue;
    }
    const results: ContentPart[] = [];
    const parts: ContentPart[] = [];
    for (const block of message.content) convertBlock(block, results, parts);
    // LiteLLM 7.5: tool results become tool messages placed BEFORE the rest of the user turn.
    builder.add('tool', results);
    builder.add(message.role, parts);
  }
  const tools: ToolDefinition[] = [];
  for (const tool of request.tools ?? []) {
    if (!isCustomTool(tool)) continue;
    tools.push({
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: asJsonValue(tool.input_schema) as JsonObject,
      ...cacheControl(tool.cache_control),
    });
  }
  const toolChoice = convertToolChoice(request.tool_choice);
  const disableParallel = request.tool_choice && 'disable_parallel_tool_use' in request.tool_choice ? request.tool_choice.disable_parallel_tool_use : undefined;
  const reasoning = convertReasoning(request);
  const format = request.output_config?.format;
  return {
    model: request.model,
    system,
    messages: builder.build(),
    tools,
    ...(toolChoice ? { toolChoice } : {}),
    ...(disableParallel ? { parallelToolCalls: false } : {}),
    maxOutputTokens: request.max_tokens,
    ...(request.temperature == null ? {} : { temperature: request.temperature }),
    ...(request.top_p == null ? {} : { topP: request.top_p }),
    stopSequences: request.stop_sequences ?? [],
    ...(reasoning ? { reasoning } : {}),
    // LiteLLM names the schema "structured_output" when it maps output_config.format to chat (7.5).
    ...(format ? { responseFormat: { type: 'json_schema', name: 'structured_output', schema: asJsonValue(format.schema) as JsonObject, strict: true } } : {}),
    ...(request.metadata?.user_id ? { user: request.metadata.user_id } : {}),
    stream: request.stream === true,
    streamUsage: true,
    extra: collectExtras(request, MESSAGES_CANONICAL_FIELDS, 'messages'),
  };
}
