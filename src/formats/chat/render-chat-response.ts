import type { JsonObject } from '../json-value.js';
import type { CanonicalResponse } from '../canonical/canonical-response.js';
import type { ClientIdentity } from '../canonical/stream-codec.js';
import { stopReasonToChat } from './chat-stop-reason.js';
import { usageToChat } from './chat-usage.js';

/**
 * Canonical → client chat completion (spec 2.1: `id` is the request id, `model` the client's name).
 * Reasoning goes where OpenRouter puts it: `reasoning` (text) and `reasoning_details` (with signatures, so a
 * client can send a thinking turn back to a messages provider).
 */
export function renderChatResponse(response: CanonicalResponse, identity: ClientIdentity): JsonObject {
  let text: string | null = null;
  let reasoning: string | null = null;
  const details: JsonObject[] = [];
  const toolCalls: JsonObject[] = [];
  for (const part of response.content) {
    switch (part.type) {
      case 'text':
        text = (text ?? '') + part.text;
        break;
      case 'reasoning':
        reasoning = (reasoning ?? '') + part.text;
        details.push({ type: 'reasoning.text', text: part.text, ...(part.signature ? { signature: part.signature } : {}), index: details.length });
        break;
      case 'redacted_reasoning':
        details.push({ type: 'reasoning.encrypted', data: part.data, index: details.length });
        break;
      case 'tool_call':
        toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
        break;
    }
  }
  const message: JsonObject = { role: 'assistant', content: text, refusal: null };
  if (reasoning !== null) message.reasoning = reasoning;
  if (details.length > 0) message.reasoning_details = details;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const body: JsonObject = {
    id: identity.requestId,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: stopReasonToChat(response.stopReason) }],
  };
  if (response.usage) body.usage = usageToChat(response.usage);
  return body;
}
