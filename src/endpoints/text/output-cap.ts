import type { FormatName } from '../../formats/canonical/format-name.js';
import type { JsonObject } from '../../formats/json-value.js';

/** Chat's two names of one output cap; `max_tokens` is the older, which o-series models refuse. */
const CHAT_CAPS = ['max_completion_tokens', 'max_tokens'] as const;

/**
 * A client body with its output cap lowered to `tokens`, in the field its format reads it from, for a body
 * that goes to the provider as sent (pass-through; a translated request carries the cap in the canonical
 * request instead). Messages: `max_tokens`; responses: `max_output_tokens`. Chat: each of its two fields
 * the client sent is lowered, and when none of them would reach the provider (none sent, or the ones sent
 * dropped by the model's `drop_params`), the first one the model does not drop is added, so the provider
 * always receives the lowered cap.
 */
export function withOutputCap(format: FormatName, body: JsonObject, tokens: number, dropParams: readonly string[]): JsonObject {
  switch (format) {
    case 'messages':
      return { ...body, max_tokens: tokens };
    case 'responses':
      return { ...body, max_output_tokens: tokens };
    case 'chat': {
      const capped: JsonObject = { ...body };
      const sent = CHAT_CAPS.filter((name) => body[name] !== undefined && body[name] !== null);
      for (const name of sent) capped[name] = tokens;
      if (!sent.some((name) => !dropParams.includes(name))) {
        const kept = CHAT_CAPS.find((name) => !dropParams.includes(name)) ?? CHAT_CAPS[0];
        capped[kept] = tokens;
      }
      return capped;
    }
  }
}
