import { z } from 'zod';
import { isJsonObject } from '../json-value.js';
import { providerError } from '../canonical/canonical-error.js';
import type { CanonicalResponse, OutputPart } from '../canonical/canonical-response.js';
import { parseProviderBody } from '../canonical/schema-validation.js';
import { stopReasonOfOutcome } from './responses-status.js';
import { usageFromResponses } from './responses-usage.js';

const providerResponseSchema = z.looseObject({
  id: z.string().default(''),
  model: z.string().default(''),
  status: z.string().nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
  output: z.array(z.looseObject({ type: z.string() })),
  usage: z.unknown().optional(),
});

const texts = (value: unknown, key: 'text' | 'refusal'): string[] =>
  Array.isArray(value) ? value.flatMap((part) => (isJsonObject(part) && typeof part[key] === 'string' ? [part[key]] : [])) : [];

/** Provider `Response` → canonical response. Hosted-tool items (web search, files…) are left out. */
export function parseResponsesResponse(body: unknown): CanonicalResponse {
  const response = parseProviderBody(providerResponseSchema, body, 'response');
  const content: OutputPart[] = [];
  let calledTools = false;
  for (const item of response.output) {
    switch (item.type) {
      case 'message': {
        const parts = Array.isArray(item.content) ? item.content : [];
        const text = parts
          .map((part) => (isJsonObject(part) ? (typeof part.text === 'string' ? part.text : typeof part.refusal === 'string' ? part.refusal : '') : ''))
          .join('');
        if (text !== '') content.push({ type: 'text', text });
        break;
      }
      case 'function_call':
        if (typeof item.call_id === 'string' && typeof item.name === 'string') {
          calledTools = true;
          content.push({ type: 'tool_call', id: item.call_id, name: item.name, arguments: typeof item.arguments === 'string' ? item.arguments : '' });
        }
        break;
      case 'reasoning': {
        const summary = texts(item.summary, 'text');
        const text = (summary.length > 0 ? summary : texts(item.content, 'text')).join('\n\n');
        const signature = typeof item.encrypted_content === 'string' ? item.encrypted_content : undefined;
        if (text === '' && signature) content.push({ type: 'redacted_reasoning', data: signature });
        else if (text !== '' || signature) content.push({ type: 'reasoning', text, ...(signature ? { signature } : {}) });
        break;
      }
    }
  }
  const usage = usageFromResponses(response.usage);
  const stopReason = stopReasonOfOutcome(response.status, response.incomplete_details?.reason, calledTools);
  return {
    id: response.id,
    model: response.model,
    content,
    stopReason,
    ...(usage ? { usage } : {}),
    ...(stopReason === 'error'
      ? { error: providerError(response.error?.code === 'rate_limit_exceeded' ? 429 : 502, response.error?.message ?? 'the provider failed the response', response.error?.code ?? undefined) }
      : {}),
  };
}
