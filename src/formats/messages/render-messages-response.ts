import { isJsonObject, tryParseJson, type JsonObject } from '../json-value.js';
import type { CanonicalResponse } from '../canonical/canonical-response.js';
import { createUsage } from '../../billing/usage.js';
import { messagesMessageId } from '../canonical/gateway-ids.js';
import type { ClientIdentity } from '../canonical/stream-codec.js';
import { stopReasonToMessages } from './messages-stop-reason.js';
import { usageToMessages } from './messages-usage.js';

/**
 * Canonical → client `Message` (spec 2.2). When the whole `max_tokens` went to reasoning there is simply no
 * text block and `stop_reason` is `max_tokens` — no empty text block is invented.
 */
export function renderMessagesResponse(response: CanonicalResponse, identity: ClientIdentity): JsonObject {
  const content: JsonObject[] = [];
  for (const part of response.content) {
    switch (part.type) {
      case 'text':
        if (part.text !== '') content.push({ type: 'text', text: part.text });
        break;
      case 'reasoning':
        content.push({ type: 'thinking', thinking: part.text, signature: part.signature ?? '' });
        break;
      case 'redacted_reasoning':
        content.push({ type: 'redacted_thinking', data: part.data });
        break;
      case 'tool_call': {
        // Arguments cut short (max_tokens mid-call) are not an object: the block still needs one.
        const input = part.arguments.trim() === '' ? {} : tryParseJson(part.arguments);
        content.push({ type: 'tool_use', id: part.id, name: part.name, input: isJsonObject(input) ? input : {} });
        break;
      }
    }
  }
  return {
    id: messagesMessageId(identity.requestId),
    type: 'message',
    role: 'assistant',
    model: identity.model,
    content,
    stop_reason: stopReasonToMessages(response.stopReason),
    stop_sequence: response.stopSequence ?? null,
    stop_details: null,
    usage: usageToMessages(response.usage ?? createUsage()),
  };
}
