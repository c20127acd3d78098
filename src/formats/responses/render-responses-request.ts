import type { JsonObject, JsonValue } from '../json-value.js';
import type { CanonicalRequest, ImagePart, TextPart } from '../canonical/canonical-request.js';
import { carryExtras } from '../canonical/extra-fields.js';
import { imageSourceToUrl } from '../canonical/image-source.js';
import { effortOfBudget } from '../canonical/reasoning-effort.js';
import type { RenderedRequest, RequestRenderOptions } from '../canonical/rendered-request.js';

/** Extras a responses provider understands with the same meaning when the client spoke chat. */
const SHARED_EXTRAS = { chat: ['metadata', 'service_tier', 'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention'] } as const;

function inputPart(part: TextPart | ImagePart): JsonObject {
  if (part.type === 'text') return { type: 'input_text', text: part.text };
  return { type: 'input_image', image_url: imageSourceToUrl(part.source), detail: part.detail ?? 'auto' };
}

/**
 * Canonical → responses request. Always `store: false`: the gateway is stateless (spec 4.3) and OpenAI
 * stores by default. System instructions stay separate `system`/`developer` input messages, in order,
 * rather than one `instructions` string. Reasoning from earlier turns is not sent: a reasoning item is only
 * accepted back with its original `rs_…` id, which another format never had. Responses has no stop
 * sequences: `stop` is dropped.
 */
export function renderResponsesRequest(request: CanonicalRequest, options: RequestRenderOptions): RenderedRequest {
  const dropped: string[] = [];
  const input: JsonObject[] = [];
  for (const instruction of request.system) input.push({ type: 'message', role: instruction.role, content: instruction.text });
  for (const message of request.messages) {
    switch (message.role) {
      case 'user': {
        const parts: JsonObject[] = [];
        for (const part of message.content) {
          if (part.type === 'text' || part.type === 'image') parts.push(inputPart(part));
          else dropped.push(`messages.${part.type === 'opaque' ? part.kind : part.type}`);
        }
        if (parts.length > 0) input.push({ type: 'message', role: 'user', content: parts });
        break;
      }
      case 'assistant': {
        let text = '';
        const flush = () => {
          if (text !== '') input.push({ type: 'message', role: 'assistant', content: text });
          text = '';
        };
        for (const part of message.content) {
          if (part.type === 'text') text += part.text;
          else if (part.type === 'tool_call') {
            flush();
            input.push({ type: 'function_call', call_id: part.id, name: part.name, arguments: part.arguments });
          } else if (part.type === 'opaque') dropped.push(`messages.${part.kind}`);
          else if (part.type === 'reasoning' || part.type === 'redacted_reasoning') dropped.push('messages.reasoning');
        }
        flush();
        break;
      }
      case 'tool':
        for (const part of message.content) {
          if (part.type !== 'tool_result') continue;
          const output: JsonValue = typeof part.content === 'string' ? part.content : part.content.map(inputPart);
          input.push({ type: 'function_call_output', call_id: part.callId, output });
          if (part.isError) dropped.push('messages.tool_result.is_error');
        }
        break;
    }
  }
  const body: JsonObject = { model: options.model, input, store: false };
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stopSequences.length > 0) dropped.push('stop');
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: tool.parameters,
      strict: tool.strict ?? false,
    }));
  }
  if (request.toolChoice) body.tool_choice = request.toolChoice.type === 'tool' ? { type: 'function', name: request.toolChoice.name } : request.toolChoice.type;
  if (request.parallelToolCalls !== undefined && request.tools.length > 0) body.parallel_tool_calls = request.parallelToolCalls;
  if (request.reasoning) {
    const effort = request.reasoning.effort ?? effortOfBudget(request.reasoning.budgetTokens);
    // `summary: auto` is what makes reasoning visible at all; without it the client would get none.
    if (effort) body.reasoning = effort === 'none' ? { effort } : { effort, summary: 'auto' };
  }
  if (request.responseFormat) {
    const format = request.responseFormat;
    body.text = {
      format:
        format.type === 'json_schema'
          ? {
              type: 'json_schema',
              name: format.name,
              schema: format.schema,
              ...(format.description ? { description: format.description } : {}),
              ...(format.strict === undefined ? {} : { strict: format.strict }),
            }
          : { type: format.type },
    };
  }
  if (request.user) body.user = request.user;
  if (request.stream) body.stream = true;
  carryExtras(request.extra, SHARED_EXTRAS, body, dropped);
  return { body, dropped };
}
