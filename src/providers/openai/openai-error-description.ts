import { z } from 'zod';
import { bodyExcerpt, parseJsonBody, shorten } from '../json-body.js';

// [OAI-SPEC] ErrorResponse: {error: {message, type, param, code}}; OpenRouter sends a numeric code.
const openAiErrorSchema = z.object({
  error: z.object({
    message: z.string().optional(),
    type: z.string().nullish(),
    code: z.union([z.string(), z.number()]).nullish(),
  }),
});

/** `429 rate_limit_error/rate_limit_exceeded: Rate limit reached…`, or `undefined` when the body is not in that shape. */
export function describeOpenAiShapedError(status: number, json: unknown): string | undefined {
  const parsed = openAiErrorSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const { type, code, message } = parsed.data.error;
  // OpenRouter repeats the HTTP status as a numeric code: no need to say it twice
  const kind = [type, code === status ? undefined : code].filter((part) => part !== undefined && part !== null && part !== '').join('/');
  return `${status}${kind ? ` ${kind}` : ''}: ${shorten(message ?? '')}`;
}

export function describeOpenAiError(status: number, body: Buffer): string {
  return describeOpenAiShapedError(status, parseJsonBody(body)) ?? `${status}: ${bodyExcerpt(body)}`;
}
