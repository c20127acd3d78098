import { z } from 'zod';
import type { CanonicalResponse, OutputPart } from '../canonical/canonical-response.js';
import { syntheticToolCallId } from '../canonical/gateway-ids.js';
import { parseProviderBody } from '../canonical/schema-validation.js';
import { stopReasonFromChat } from './chat-stop-reason.js';
import { usageFromChat } from './chat-usage.js';

const providerChatResponseSchema = z.looseObject({
  id: z.string().default(''),
  model: z.string().default(''),
  choices: z
    .array(
      z.looseObject({
        index: z.number().optional(),
        finish_reason: z.string().nullish(),
        message: z.looseObject({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          reasoning: z.string().nullish(),
          reasoning_content: z.string().nullish(),
          reasoning_details: z.array(z.looseObject({ type: z.string(), text: z.string().nullish(), signature: z.string().nullish(), data: z.string().nullish() })).nullish(),
          tool_calls: z
            .array(z.looseObject({ id: z.string().nullish(), type: z.string().nullish(), function: z.looseObject({ name: z.string(), arguments: z.string().nullish() }).nullish() }))
            .nullish(),
        }),
      }),
    )
    .min(1),
  usage: z.unknown().optional(),
});

/** Provider chat completion → canonical response (only choice 0: the gateway never asks for `n` > 1). */
export function parseChatResponse(body: unknown): CanonicalResponse {
  const response = parseProviderBody(providerChatResponseSchema, body, 'chat completion');
  const choice = response.choices.find((item) => (item.index ?? 0) === 0) ?? response.choices[0]!;
  const message = choice.message;
  const content: OutputPart[] = [];
  if (message.reasoning_details && message.reasoning_details.length > 0) {
    for (const detail of message.reasoning_details) {
      if (detail.type === 'reasoning.encrypted' && detail.data) content.push({ type: 'redacted_reasoning', data: detail.data });
      else if (detail.type === 'reasoning.text') content.push({ type: 'reasoning', text: detail.text ?? '', ...(detail.signature ? { signature: detail.signature } : {}) });
    }
  } else {
    const reasoning = message.reasoning ?? message.reasoning_content;
    if (reasoning) content.push({ type: 'reasoning', text: reasoning });
  }
  const text = (message.content ?? '') + (message.refusal ?? '');
  if (text !== '') content.push({ type: 'text', text });
  let index = 0;
  for (const call of message.tool_calls ?? []) {
    if (!call.function) continue;
    content.push({ type: 'tool_call', id: call.id || syntheticToolCallId(response.id, index), name: call.function.name, arguments: call.function.arguments ?? '' });
    index++;
  }
  const usage = usageFromChat(response.usage);
  return {
    id: response.id,
    model: response.model,
    content,
    stopReason: stopReasonFromChat(choice.finish_reason),
    ...(usage ? { usage } : {}),
  };
}
