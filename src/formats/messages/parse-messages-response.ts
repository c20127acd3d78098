import { z } from 'zod';
import type { CanonicalResponse, OutputPart } from '../canonical/canonical-response.js';
import { parseProviderBody } from '../canonical/schema-validation.js';
import { stopReasonFromMessages } from './messages-stop-reason.js';
import { usageFromMessages } from './messages-usage.js';

const providerMessageSchema = z.looseObject({
  id: z.string().default(''),
  model: z.string().default(''),
  content: z.array(z.looseObject({ type: z.string() })),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  usage: z.unknown().optional(),
});

/** Provider `Message` → canonical response. Server-tool blocks have no counterpart and are left out. */
export function parseMessagesResponse(body: unknown): CanonicalResponse {
  const message = parseProviderBody(providerMessageSchema, body, 'message');
  const content: OutputPart[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case 'text':
        if (typeof block.text === 'string') content.push({ type: 'text', text: block.text });
        break;
      case 'thinking':
        if (typeof block.thinking === 'string') {
          content.push({ type: 'reasoning', text: block.thinking, ...(typeof block.signature === 'string' ? { signature: block.signature } : {}) });
        }
        break;
      case 'redacted_thinking':
        if (typeof block.data === 'string') content.push({ type: 'redacted_reasoning', data: block.data });
        break;
      case 'tool_use':
        if (typeof block.id === 'string' && typeof block.name === 'string') {
          content.push({ type: 'tool_call', id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
        }
        break;
    }
  }
  const usage = usageFromMessages(message.usage);
  return {
    id: message.id,
    model: message.model,
    content,
    stopReason: stopReasonFromMessages(message.stop_reason),
    ...(message.stop_sequence ? { stopSequence: message.stop_sequence } : {}),
    ...(usage ? { usage } : {}),
  };
}
