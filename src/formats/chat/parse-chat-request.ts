import { asJsonValue, type JsonObject } from '../json-value.js';
import type {
  CacheControl,
  CanonicalRequest,
  ContentPart,
  ImagePart,
  ReasoningPart,
  RedactedReasoningPart,
  ResponseFormat,
  SystemInstruction,
  TextPart,
  ToolChoice,
  ToolDefinition,
} from '../canonical/canonical-request.js';
import { collectExtras } from '../canonical/extra-fields.js';
import { imageSourceFromUrl } from '../canonical/image-source.js';
import { MessageBuilder } from '../canonical/message-builder.js';
import { parseClientBody } from '../canonical/schema-validation.js';
import { CHAT_CANONICAL_FIELDS, chatRequestSchema, type ChatMessage, type ChatRequestBody } from './chat-request-schema.js';

type CacheControlInput = { type: 'ephemeral'; ttl?: '5m' | '1h' | undefined } | null | undefined;

function cacheControl(value: CacheControlInput): { cacheControl?: CacheControl } {
  if (!value) return {};
  return { cacheControl: value.ttl ? { type: 'ephemeral', ttl: value.ttl } : { type: 'ephemeral' } };
}

type ChatTextPart = { text: string; cache_control?: CacheControlInput };

function textParts(content: string | readonly ChatTextPart[]): TextPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((part) => ({ type: 'text', text: part.text, ...cacheControl(part.cache_control) }));
}

/** OpenRouter `reasoning_details` first (they carry signatures), else the plain reasoning string. */
function reasoningParts(message: Extract<ChatMessage, { role: 'assistant' }>): Array<ReasoningPart | RedactedReasoningPart> {
  if (message.reasoning_details && message.reasoning_details.length > 0) {
    const parts: Array<ReasoningPart | RedactedReasoningPart> = [];
    for (const detail of message.reasoning_details) {
      if (detail.type === 'reasoning.encrypted' && detail.data) parts.push({ type: 'redacted_reasoning', data: detail.data });
      else if (detail.type === 'reasoning.text' || detail.type === 'reasoning.summary') {
        const text = detail.text ?? detail.summary ?? '';
        parts.push({ type: 'reasoning', text, ...(detail.signature ? { signature: detail.signature } : {}) });
      }
    }
    return parts;
  }
  const text = message.reasoning ?? message.reasoning_content;
  return text ? [{ type: 'reasoning', text }] : [];
}

function convertMessage(message: ChatMessage, system: SystemInstruction[], builder: MessageBuilder): void {
  switch (message.role) {
    case 'system':
    case 'developer':
      // Portkey #457 kept only the last system message; every one is kept, in order (peer-pitfalls.md).
      for (const part of textParts(message.content)) {
        system.push({ text: part.text, role: message.role, ...(part.cacheControl ? { cacheControl: part.cacheControl } : {}) });
      }
      return;
    case 'user': {
      if (typeof message.content === 'string') return builder.add('user', [{ type: 'text', text: message.content }]);
      const parts: ContentPart[] = message.content.map((part): ContentPart => {
        switch (part.type) {
          case 'text':
            return { type: 'text', text: part.text, ...cacheControl(part.cache_control) };
          case 'image_url': {
            const image: ImagePart = {
              type: 'image',
              source: imageSourceFromUrl(part.image_url.url),
              ...(part.image_url.detail ? { detail: part.image_url.detail } : {}),
              ...cacheControl(part.cache_control),
            };
            return image;
          }
          case 'input_audio':
          case 'file':
            return { type: 'opaque', format: 'chat', kind: part.type, value: asJsonValue(part) };
        }
      });
      return builder.add('user', parts);
    }
    case 'assistant': {
      const parts: ContentPart[] = [...reasoningParts(message)];
      if (typeof message.content === 'string') parts.push(...textParts(message.content));
      else if (message.content) {
        for (const part of message.content) {
          const text = part.type === 'text' ? part.text : part.refusal;
          if (text) parts.push({ type: 'text', text });
        }
      }
      if (message.refusal) parts.push({ type: 'text', text: message.refusal });
      for (const call of message.tool_calls ?? []) {
        if (call.type === 'function') parts.push({ type: 'tool_call', id: call.id, name: call.function.name, arguments: call.function.arguments });
        else parts.push({ type: 'opaque', format: 'chat', kind: 'custom_tool_call', value: asJsonValue(call) });
      }
      return builder.add('assistant', parts);
    }
    case 'tool':
      return builder.add('tool', [
        { type: 'tool_result', callId: message.tool_call_id, content: typeof message.content === 'string' ? message.content : textParts(message.content), isError: false },
      ]);
    case 'function':
      return builder.add('user', [{ type: 'opaque', format: 'chat', kind: 'function_message', value: asJsonValue(message) }]);
  }
}

function convertToolChoice(choice: ChatRequestBody['tool_choice']): ToolChoice | undefined {
  if (!choice) return undefined;
  if (typeof choice === 'string') return { type: choice };
  switch (choice.type) {
    case 'function':
      return { type: 'tool', name: choice.function.name };
    case 'custom':
      return { type: 'tool', name: choice.custom.name };
    case 'allowed_tools':
      // The allow-list itself has no counterpart in messages; its mode does.
      return { type: choice.allowed_tools.mode };
  }
}

function convertResponseFormat(format: ChatRequestBody['response_format']): ResponseFormat | undefined {
  if (!format) return undefined;
  switch (format.type) {
    case 'text':
    case 'json_object':
      return { type: format.type };
    case 'json_schema':
      return {
        type: 'json_schema',
        name: format.json_schema.name,
        schema: asJsonValue(format.json_schema.schema ?? {}) as JsonObject,
        ...(format.json_schema.description ? { description: format.json_schema.description } : {}),
        ...(format.json_schema.strict == null ? {} : { strict: format.json_schema.strict }),
      };
  }
}

/** Client chat body → canonical request. Throws `GatewayError('invalid_request')` naming the field. */
export function parseChatRequest(body: unknown): CanonicalRequest {
  const request = parseClientBody(chatRequestSchema, body);
  const system: SystemInstruction[] = [];
  const builder = new MessageBuilder();
  for (const message of request.messages) convertMessage(message, system, builder);
  const tools: ToolDefinition[] = [];
  for (const tool of request.tools ?? []) {
    if (tool.type !== 'function') continue;
    tools.push({
      name: tool.function.name,
      ...(tool.function.description ? { description: tool.function.description } : {}),
      parameters: asJsonValue(tool.function.parameters ?? { type: 'object', properties: {} }) as JsonObject,
      ...(tool.function.strict == null ? {} : { strict: tool.function.strict }),
      ...cacheControl(tool.cache_control),
    });
  }
  const maxOutputTokens = request.max_completion_tokens ?? request.max_tokens ?? undefined;
  const toolChoice = convertToolChoice(request.tool_choice);
  const responseFormat = convertResponseFormat(request.response_format);
  const stop = request.stop == null ? [] : typeof request.stop === 'string' ? [request.stop] : request.stop;
  return {
    model: request.model,
    system,
    messages: builder.build(),
    tools,
    ...(toolChoice ? { toolChoice } : {}),
    ...(request.parallel_tool_calls == null ? {} : { parallelToolCalls: request.parallel_tool_calls }),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(request.temperature == null ? {} : { temperature: request.temperature }),
    ...(request.top_p == null ? {} : { topP: request.top_p }),
    stopSequences: stop,
    ...(request.reasoning_effort ? { reasoning: { effort: request.reasoning_effort } } : {}),
    ...(responseFormat ? { responseFormat } : {}),
    ...(request.user ? { user: request.user } : {}),
    stream: request.stream === true,
    streamUsage: request.stream_options?.include_usage === true,
    extra: collectExtras(request, CHAT_CANONICAL_FIELDS, 'chat'),
  };
}
