import { z } from 'zod';
import { bodyExcerpt, parseJsonBody, shorten } from '../json-body.js';

// [ANT-SDK shared.ts ErrorResponse] {type: "error", error: {type, message}, request_id}
const anthropicErrorSchema = z.object({
  type: z.literal('error'),
  error: z.object({ type: z.string(), message: z.string().optional() }),
});

/** `529 overloaded_error: Overloaded`; a 413 from Cloudflare in front of the API is HTML, hence the excerpt fallback. */
export function describeAnthropicError(status: number, body: Buffer): string {
  const parsed = anthropicErrorSchema.safeParse(parseJsonBody(body));
  if (!parsed.success) return `${status}: ${bodyExcerpt(body)}`;
  return `${status} ${parsed.data.error.type}: ${shorten(parsed.data.error.message ?? '')}`;
}
