import type { JsonObject, JsonValue } from '../json-value.js';
import type { CanonicalRequest, ContentPart, ImagePart, TextPart, ToolChoice } from '../canonical/canonical-request.js';
import { carryExtras } from '../canonical/extra-fields.js';
import { imageSourceToUrl } from '../canonical/image-source.js';
import { effortOfBudget } from '../canonical/reasoning-effort.js';
import type { RenderedRequest, RequestRenderOptions } from '../canonical/rendered-request.js';

/** Extras a chat provider understands with the same meaning when the client spoke responses. */
const SHARED_EXTRAS = { responses: ['metadata', 'service_tier', 'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention', 'verbosity'] } as const;

function textPart(part: TextPart): JsonObject {
  return part.cacheControl ? { type: 'text', text: part.text, cache_control: { ...part.cacheControl } } : { type: 'text', text: part.text };
}

function imagePart(part: ImagePart): JsonObject {
  const image: JsonObject = { url: imageSourceToUrl(part.source) };
  if (part.detail) image.detail = part.detail;
  return { type: 'image_url', image_url: image };
}

function toolChoice(choice: ToolChoice): JsonValue {
  return choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type;
}

/** A string when the content is plain text (the most widely accepted form among compatible servers). */
function userContent(parts: ReadonlyArray<TextPart | ImagePart>): JsonValue {
  if (parts.every((part) => part.type === 'text' && !part.cacheControl)) return parts.map((part) => (part as TextPart).text).join('');
  return parts.map((part) => (part.type === 'text' ? textPart(part) : imagePart(part)));
}

/**
 * Canonical → chat request for a chat provider. Usage is always asked for in streams (DESIGN 7: the gateway
 * bills on it; the client only sees it when it asked). Reasoning from earlier turns is not sent back: plain
 * chat has no field for it and OpenAI-compatible servers reject or ignore unknown message fields.
 */
export function renderChatRequest(request: CanonicalRequest, options: RequestRenderOptions): RenderedRequest {
  const dropped: string[] = [];
  const messages: JsonObject[] = [];
  for (const instruction of request.system) messages.push({ role: instruction.role, content: instruction.text });
  for (const message of request.messages) {
    switch (message.role) {
      case 'user': {
        const parts: Array<TextPart | ImagePart> = [];
        for (const part of message.content) {
          if (part.type === 'text' || part.type === 'image') parts.push(part);
          else dropped.push(`messages.${part.type === 'opaque' ? part.kind : part.type}`);
        }
        if (parts.length > 0) messages.push({ role: 'user', content: userContent(parts) });
        break;
      }
      case 'assistant': {
        let text = '';
        const toolCalls: JsonObject[] = [];
        for (const part of message.content) {
          if (part.type === 'text') text += part.text;
          else if (part.type === 'tool_call') toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
          else if (part.type === 'opaque') dropped.push(`messages.${part.kind}`);
          else if (part.type === 'reasoning' || part.type === 'redacted_reasoning') dropped.push('messages.reasoning');
        }
        const rendered: JsonObject = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
        if (toolCalls.length > 0) rendered.tool_calls = toolCalls;
        messages.push(rendered);
        break;
      }
      case 'tool':
        for (const part of message.content) {
          if (part.type !== 'tool_result') continue;
          // Chat tool messages hold text only: images in a tool result are dropped, and so is is_error.
          const content =
            typeof part.content === 'string'
              ? part.content
              : part.content.flatMap((item: ContentPart) => (item.type === 'text' ? [item.text] : [])).join('');
          if (typeof part.content !== 'string' && part.content.some((item) => item.type === 'image')) dropped.push('messages.tool_result.image');
          if (part.isError) dropped.push('messages.tool_result.is_error');
          messages.push({ role: 'tool', tool_call_id: part.callId, content });
        }
        break;
    }
  }
  const body: JsonObject = { model: options.model, messages };
  if (request.maxOutputTokens !== undefined) body.max_completion_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stopSequences.length > 0) body.stop = [...request.stopSequences];
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => {
      const fn: JsonObject = { name: tool.name, parameters: tool.parameters };
      if (tool.description) fn.description = tool.description;
      if (tool.strict !== undefined) fn.strict = tool.strict;
      return { type: 'function', function: fn };
    });
  }
  if (request.toolChoice) body.tool_choice = toolChoice(request.toolChoice);
  if (request.parallelToolCalls !== undefined && request.tools.length > 0) body.parallel_tool_calls = request.parallelToolCalls;
  if (request.reasoning) {
    const effort = request.reasoning.effort ?? effortOfBudget(request.reasoning.budgetTokens);
    if (effort) body.reasoning_effort = effort;
  }
  if (request.responseFormat) {
    const format = request.responseFormat;
    body.response_format =
      format.type === 'json_schema'
        ? {
            type: 'json_schema',
            json_schema: {
              name: format.name,
              schema: format.schema,
              ...(format.description ? { description: format.description } : {}),
              ...(format.strict === undefined ? {} : { strict: format.strict }),
            },
          }
        : { type: format.type };
  }
  if (request.user) body.user = request.user;
  if (request.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  carryExtras(request.extra, SHARED_EXTRAS, body, dropped);
  return { body, dropped };
}
