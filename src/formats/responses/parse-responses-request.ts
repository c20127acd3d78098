import { GatewayError } from '../../errors/gateway-error.js';
import { asJsonValue, type JsonObject } from '../json-value.js';
import type { CanonicalRequest, ContentPart, ImagePart, ResponseFormat, SystemInstruction, TextPart, ToolChoice, ToolDefinition } from '../canonical/canonical-request.js';
import { collectExtras } from '../canonical/extra-fields.js';
import { imageSourceFromUrl } from '../canonical/image-source.js';
import { MessageBuilder } from '../canonical/message-builder.js';
import { parseClientBody } from '../canonical/schema-validation.js';
import {
  RESPONSES_CANONICAL_FIELDS,
  responsesRequestSchema,
  type ResponsesContentPart,
  type ResponsesItem,
  type ResponsesRequestBody,
} from './responses-request-schema.js';

type Item<T extends string> = Extract<ResponsesItem, { type: T }>;

/** zod matched the union in order and the catch-all refuses known types, so the `type` names the branch. */
function itemOf<T extends 'function_call' | 'function_call_output' | 'reasoning'>(item: ResponsesItem, type: T): Item<T> | undefined {
  return !('role' in item && typeof item.role === 'string') && item.type === type ? (item as Item<T>) : undefined;
}

function imagePart(part: Extract<ResponsesContentPart, { type: 'input_image' }>): ImagePart | undefined {
  if (!part.image_url) return undefined;
  const detail = part.detail === 'original' ? undefined : part.detail;
  return { type: 'image', source: imageSourceFromUrl(part.image_url), ...(detail ? { detail } : {}) };
}

function contentParts(content: string | readonly ResponsesContentPart[]): ContentPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((part): ContentPart => {
    switch (part.type) {
      case 'input_text':
      case 'output_text':
        return { type: 'text', text: part.text };
      case 'refusal':
        return { type: 'text', text: part.refusal };
      case 'input_image':
        return imagePart(part) ?? { type: 'opaque', format: 'responses', kind: 'input_image', value: asJsonValue(part) };
      case 'input_file':
        return { type: 'opaque', format: 'responses', kind: part.type, value: asJsonValue(part) };
    }
  });
}

function convertItem(item: ResponsesItem, system: SystemInstruction[], builder: MessageBuilder): void {
  if ('role' in item && typeof item.role === 'string' && (item.type === undefined || item.type === 'message')) {
    const message = item as Extract<ResponsesItem, { role: string }>;
    const parts = contentParts(message.content);
    if (message.role === 'system' || message.role === 'developer') {
      for (const part of parts) if (part.type === 'text') system.push({ text: part.text, role: message.role });
      return;
    }
    return builder.add(message.role, parts);
  }
  const call = itemOf(item, 'function_call');
  if (call) return builder.add('assistant', [{ type: 'tool_call', id: call.call_id, name: call.name, arguments: call.arguments }]);
  const output = itemOf(item, 'function_call_output');
  if (output) {
    const content =
      typeof output.output === 'string'
        ? output.output
        : contentParts(output.output).filter((part): part is TextPart | ImagePart => part.type === 'text' || part.type === 'image');
    return builder.add('tool', [{ type: 'tool_result', callId: output.call_id, content, isError: false }]);
  }
  const reasoning = itemOf(item, 'reasoning');
  if (reasoning) {
    const text = (reasoning.summary ?? reasoning.content ?? []).map((part) => part.text).join('\n\n');
    const signature = reasoning.encrypted_content ?? undefined;
    if (text === '' && signature) return builder.add('assistant', [{ type: 'redacted_reasoning', data: signature }]);
    return builder.add('assistant', [{ type: 'reasoning', text, ...(signature ? { signature } : {}) }]);
  }
  builder.add('user', [{ type: 'opaque', format: 'responses', kind: String(item.type), value: asJsonValue(item) }]);
}

function convertToolChoice(choice: ResponsesRequestBody['tool_choice']): ToolChoice | undefined {
  if (!choice) return undefined;
  if (typeof choice === 'string') return { type: choice };
  if (choice.type === 'function' && typeof choice.name === 'string') return { type: 'tool', name: choice.name };
  if (choice.type === 'allowed_tools' && (choice.mode === 'auto' || choice.mode === 'required')) return { type: choice.mode };
  return undefined;
}

function convertFormat(format: NonNullable<ResponsesRequestBody['text']>['format']): ResponseFormat | undefined {
  if (!format) return undefined;
  switch (format.type) {
    case 'text':
    case 'json_object':
      return { type: format.type };
    case 'json_schema':
      return {
        type: 'json_schema',
        name: format.name,
        schema: asJsonValue(format.schema) as JsonObject,
        ...(format.description ? { description: format.description } : {}),
        ...(format.strict == null ? {} : { strict: format.strict }),
      };
  }
}

/** `text.verbosity` is chat's top-level `verbosity`: kept as an extra so a chat provider receives it. */
function withVerbosity(extra: CanonicalRequest['extra'], verbosity: unknown): CanonicalRequest['extra'] {
  return typeof verbosity === 'string' ? { format: extra.format, fields: { ...extra.fields, verbosity } } : extra;
}

/**
 * Client responses body → canonical request. The gateway keeps no history (spec 4.3 rule 1): `store: true`,
 * `previous_response_id`, a `conversation` or an `item_reference` input item give `stateful_not_supported`.
 */
export function parseResponsesRequest(body: unknown): CanonicalRequest {
  const request = parseClientBody(responsesRequestSchema, body);
  if (request.store === true) throw new GatewayError('stateful_not_supported', undefined, { param: 'store' });
  if (request.previous_response_id) throw new GatewayError('stateful_not_supported', undefined, { param: 'previous_response_id' });
  if (request.conversation != null) throw new GatewayError('stateful_not_supported', undefined, { param: 'conversation' });
  if (typeof request.input !== 'string') {
    // An item that only points at stored state (the AI SDK sends earlier answers so unless told
    // `store: false`): a stateless gateway has nothing to resolve it to, and dropping it would hide the
    // model's own earlier answer from it.
    const index = request.input.findIndex((item) => item.type === 'item_reference');
    if (index >= 0) {
      throw new GatewayError(
        'stateful_not_supported',
        'input items of type item_reference point at stored responses, which this gateway does not keep: send the full items instead (with the Vercel AI SDK, set providerOptions.openai.store = false)',
        { param: `input[${index}]` },
      );
    }
  }
  const system: SystemInstruction[] = request.instructions ? [{ text: request.instructions, role: 'system' }] : [];
  const builder = new MessageBuilder();
  if (typeof request.input === 'string') builder.add('user', [{ type: 'text', text: request.input }]);
  else for (const item of request.input) convertItem(item, system, builder);
  const tools: ToolDefinition[] = [];
  for (const tool of request.tools ?? []) {
    if (tool.type !== 'function' || typeof tool.name !== 'string') continue;
    tools.push({
      name: tool.name,
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      parameters: asJsonValue(tool.parameters ?? { type: 'object', properties: {} }) as JsonObject,
      ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
    });
  }
  const toolChoice = convertToolChoice(request.tool_choice);
  const responseFormat = convertFormat(request.text?.format);
  const effort = request.reasoning?.effort;
  return {
    model: request.model,
    system,
    messages: builder.build(),
    tools,
    ...(toolChoice ? { toolChoice } : {}),
    ...(request.parallel_tool_calls == null ? {} : { parallelToolCalls: request.parallel_tool_calls }),
    ...(request.max_output_tokens == null ? {} : { maxOutputTokens: request.max_output_tokens }),
    ...(request.temperature == null ? {} : { temperature: request.temperature }),
    ...(request.top_p == null ? {} : { topP: request.top_p }),
    stopSequences: [],
    ...(effort ? { reasoning: { effort } } : {}),
    ...(responseFormat ? { responseFormat } : {}),
    ...(request.user ? { user: request.user } : {}),
    stream: request.stream === true,
    streamUsage: true,
    extra: withVerbosity(collectExtras(request, RESPONSES_CANONICAL_FIELDS, 'responses'), request.text?.verbosity),
  };
}
