import type { JsonObject, JsonValue } from '../json-value.js';
import type { CanonicalResponse, OutputPart } from '../canonical/canonical-response.js';
import { responsesItemId } from '../canonical/gateway-ids.js';
import type { ClientIdentity } from '../canonical/stream-codec.js';
import { responsesEnvelope } from './responses-envelope.js';
import { outcomeOfStopReason } from './responses-status.js';
import { usageToResponses } from './responses-usage.js';

/**
 * Output items of a canonical answer, the way the stream encoder produces them: consecutive text parts are
 * one message item, each reasoning part one reasoning item (summary text, signature as `encrypted_content`),
 * each tool call one function_call item; ids are derived from the request id and the output index.
 */
export function responsesOutputItems(content: readonly OutputPart[], requestId: string): JsonObject[] {
  const items: JsonObject[] = [];
  let text: string | undefined;
  const flush = () => {
    if (text === undefined) return;
    items.push({
      id: responsesItemId('msg', requestId, items.length),
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
    });
    text = undefined;
  };
  for (const part of content) {
    if (part.type === 'text') {
      text = (text ?? '') + part.text;
      continue;
    }
    flush();
    switch (part.type) {
      case 'reasoning': {
        const item: JsonObject = {
          id: responsesItemId('rs', requestId, items.length),
          type: 'reasoning',
          summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }],
        };
        if (part.signature !== undefined) item.encrypted_content = part.signature;
        items.push(item);
        break;
      }
      case 'redacted_reasoning':
        items.push({ id: responsesItemId('rs', requestId, items.length), type: 'reasoning', summary: [], encrypted_content: part.data });
        break;
      case 'tool_call':
        items.push({
          id: responsesItemId('fc', requestId, items.length),
          type: 'function_call',
          status: 'completed',
          call_id: part.id,
          name: part.name,
          arguments: part.arguments,
        });
        break;
    }
  }
  flush();
  return items;
}

/** Canonical → client `Response` (wire-formats.md 3.2), `model` as the client named it. */
export function renderResponsesResponse(response: CanonicalResponse, identity: ClientIdentity): JsonObject {
  const output: JsonValue[] = responsesOutputItems(response.content, identity.requestId);
  return responsesEnvelope(identity, outcomeOfStopReason(response.stopReason), output, response.usage ? usageToResponses(response.usage) : null, response.error);
}
