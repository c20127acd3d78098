import { z } from 'zod';

/**
 * The chat-completions request as far as translation reads it (wire-formats.md 1.1, [OAI-SPEC]
 * `CreateChatCompletionRequest`). Objects are loose: unknown fields are not errors (spec 4.1 passes them on).
 */
export const cacheControlSchema = z.looseObject({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() });

const textPart = z.looseObject({ type: z.literal('text'), text: z.string(), cache_control: cacheControlSchema.nullish() });
const imagePart = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }),
  cache_control: cacheControlSchema.nullish(),
});
const audioPart = z.looseObject({ type: z.literal('input_audio'), input_audio: z.looseObject({}) });
const filePart = z.looseObject({ type: z.literal('file'), file: z.looseObject({}) });
const refusalPart = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

const userPart = z.discriminatedUnion('type', [textPart, imagePart, audioPart, filePart]);
const assistantPart = z.discriminatedUnion('type', [textPart, refusalPart]);

const toolCall = z.discriminatedUnion('type', [
  z.looseObject({
    id: z.string(),
    type: z.literal('function'),
    function: z.looseObject({ name: z.string(), arguments: z.string() }),
  }),
  z.looseObject({ id: z.string(), type: z.literal('custom'), custom: z.looseObject({ name: z.string(), input: z.string() }) }),
]);

/** OpenRouter's `reasoning_details` (the only chat convention that carries signatures). */
const reasoningDetail = z.looseObject({
  type: z.string(),
  text: z.string().nullish(),
  summary: z.string().nullish(),
  signature: z.string().nullish(),
  data: z.string().nullish(),
});

const instructionContent = z.union([z.string(), z.array(textPart).min(1)]);

export const chatMessageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: instructionContent }),
  z.looseObject({ role: z.literal('developer'), content: instructionContent }),
  z.looseObject({ role: z.literal('user'), content: z.union([z.string(), z.array(userPart).min(1)]) }),
  z.looseObject({
    role: z.literal('assistant'),
    content: z.union([z.string(), z.array(assistantPart)]).nullish(),
    refusal: z.string().nullish(),
    tool_calls: z.array(toolCall).nullish(),
    reasoning: z.string().nullish(),
    reasoning_content: z.string().nullish(),
    reasoning_details: z.array(reasoningDetail).nullish(),
  }),
  z.looseObject({ role: z.literal('tool'), content: z.union([z.string(), z.array(textPart)]), tool_call_id: z.string() }),
  z.looseObject({ role: z.literal('function'), content: z.string().nullable(), name: z.string() }),
]);
export type ChatMessage = z.output<typeof chatMessageSchema>;

const functionTool = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  }),
  cache_control: cacheControlSchema.nullish(),
});
const customTool = z.looseObject({ type: z.literal('custom'), custom: z.looseObject({ name: z.string() }) });

const toolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) }),
  z.looseObject({ type: z.literal('allowed_tools'), allowed_tools: z.looseObject({ mode: z.enum(['auto', 'required']) }) }),
  z.looseObject({ type: z.literal('custom'), custom: z.looseObject({ name: z.string() }) }),
]);

const responseFormat = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: z.string(),
      description: z.string().nullish(),
      schema: z.record(z.string(), z.unknown()).nullish(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

// at least one token: a cap of 0 reserves no output, and no provider answers with none
const tokenCap = z.number().int().positive().nullish();

export const chatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(chatMessageSchema).min(1),
  max_completion_tokens: tokenCap,
  max_tokens: tokenCap,
  // not canonical (no other format has it), but checked: the reserve counts `n` answers (wire-formats.md 1.1)
  n: z.number().int().min(1).max(128).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  tools: z.array(z.discriminatedUnion('type', [functionTool, customTool])).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  response_format: responseFormat.nullish(),
  reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']).nullish(),
  user: z.string().nullish(),
});
export type ChatRequestBody = z.output<typeof chatRequestSchema>;

/** The fields the parser turns into canonical fields; every other top-level field is an "extra". */
export const CHAT_CANONICAL_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'max_completion_tokens',
  'max_tokens',
  'stream',
  'stream_options',
  'stop',
  'temperature',
  'top_p',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'reasoning_effort',
  'user',
]);
