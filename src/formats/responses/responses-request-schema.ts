import { z } from 'zod';
import { dispatched, typeOf } from '../canonical/schema-validation.js';

/**
 * The responses request as far as translation reads it (wire-formats.md 3.1, [OAI-SPEC] `CreateResponse`).
 * Input items the gateway does not translate (files, item references, hosted-tool calls) pass the schema.
 */
const inputText = z.looseObject({ type: z.literal('input_text'), text: z.string() });
const inputImage = z.looseObject({
  type: z.literal('input_image'),
  image_url: z.string().nullish(),
  file_id: z.string().nullish(),
  detail: z.enum(['low', 'high', 'auto', 'original']).nullish(),
});
const outputText = z.looseObject({ type: z.literal('output_text'), text: z.string() });
const refusal = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });
const inputFile = z.looseObject({ type: z.literal('input_file') });
const contentPart = z.discriminatedUnion('type', [inputText, inputImage, outputText, refusal, inputFile]);
export type ResponsesContentPart = z.output<typeof contentPart>;

const messageItem = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(contentPart)]),
});
const functionCallItem = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
const functionCallOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string(),
  output: z.union([z.string(), z.array(z.discriminatedUnion('type', [inputText, inputImage, inputFile]))]),
});
const reasoningItem = z.looseObject({
  type: z.literal('reasoning'),
  id: z.string().nullish(),
  summary: z.array(z.looseObject({ text: z.string() })).nullish(),
  content: z.array(z.looseObject({ text: z.string() })).nullish(),
  encrypted_content: z.string().nullish(),
});
const otherItem = z.looseObject({ type: z.string() });

/** Messages may omit `type` (EasyInputMessage); every other item names it. */
export const responsesItemSchema = dispatched((value) => {
  const type = typeOf(value);
  if (type === undefined || type === 'message') return messageItem;
  if (type === 'function_call') return functionCallItem;
  if (type === 'function_call_output') return functionCallOutputItem;
  if (type === 'reasoning') return reasoningItem;
  return otherItem;
});
export type ResponsesItem = z.output<typeof responsesItemSchema>;

const functionTool = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});
const otherTool = z.looseObject({ type: z.string() });

const toolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), name: z.string() }),
  z.looseObject({ type: z.literal('allowed_tools'), mode: z.enum(['auto', 'required']) }),
  z.looseObject({ type: z.string() }),
]);

const textFormat = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    name: z.string(),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().nullish(),
    strict: z.boolean().nullish(),
  }),
]);

export const responsesRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(responsesItemSchema)]),
  instructions: z.string().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
  conversation: z.unknown().optional(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  tools: z.array(dispatched((value) => (typeOf(value) === 'function' ? functionTool : otherTool))).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  text: z.looseObject({ format: textFormat.nullish() }).nullish(),
  reasoning: z.looseObject({ effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']).nullish() }).nullish(),
  user: z.string().nullish(),
});
export type ResponsesRequestBody = z.output<typeof responsesRequestSchema>;

export const RESPONSES_CANONICAL_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'input',
  'instructions',
  'max_output_tokens',
  'stream',
  'store',
  'previous_response_id',
  'conversation',
  'temperature',
  'top_p',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'text',
  'reasoning',
  'user',
]);
