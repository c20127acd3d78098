import { z } from 'zod';
import { cacheControlSchema } from '../chat/chat-request-schema.js';
import { dispatched, typeOf } from '../canonical/schema-validation.js';

/**
 * The messages request as far as translation reads it (wire-formats.md 2.1, [ANT-SDK]
 * `MessageCreateParamsBase`). Block types the gateway does not translate (documents, server tools, search
 * results…) are accepted as they are; the known ones are checked.
 */
const textBlock = z.looseObject({ type: z.literal('text'), text: z.string(), cache_control: cacheControlSchema.nullish() });
const imageBlock = z.looseObject({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
    z.looseObject({ type: z.literal('url'), url: z.string() }),
    z.looseObject({ type: z.literal('file'), file_id: z.string() }),
  ]),
  cache_control: cacheControlSchema.nullish(),
});
const otherBlock = z.looseObject({ type: z.string() });
const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.union([textBlock, imageBlock, otherBlock]))]).optional(),
  is_error: z.boolean().nullish(),
  cache_control: cacheControlSchema.nullish(),
});
const knownBlock = z.discriminatedUnion('type', [
  textBlock,
  imageBlock,
  z.looseObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
  toolResultBlock,
  z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
  z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() }),
]);
const KNOWN_BLOCKS = new Set(['text', 'image', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking']);
const block = dispatched((value) => (KNOWN_BLOCKS.has(typeOf(value) ?? '') ? knownBlock : otherBlock));
export type MessagesBlock = z.output<typeof block>;
export type MessagesKnownBlock = z.output<typeof knownBlock>;

export function isKnownBlock(value: MessagesBlock): value is MessagesKnownBlock {
  return KNOWN_BLOCKS.has(value.type);
}

const messageParam = z.looseObject({
  // The SDK type now allows `system` turns too (wire-formats.md 2.1).
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(block)]),
});
export type MessagesMessage = z.output<typeof messageParam>;

const customTool = z.looseObject({
  name: z.string().min(1),
  description: z.string().nullish(),
  input_schema: z.record(z.string(), z.unknown()),
  type: z.literal('custom').nullish(),
  cache_control: cacheControlSchema.nullish(),
});
const serverTool = z.looseObject({ type: z.string(), name: z.string() });

export function isCustomTool(tool: unknown): tool is z.output<typeof customTool> {
  return customTool.safeParse(tool).success;
}

const toolChoice = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().nullish() }),
  z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().nullish() }),
  z.looseObject({ type: z.literal('tool'), name: z.string(), disable_parallel_tool_use: z.boolean().nullish() }),
  z.looseObject({ type: z.literal('none') }),
]);

const thinking = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().positive() }),
  z.looseObject({ type: z.literal('disabled') }),
  z.looseObject({ type: z.literal('adaptive') }),
]);

export const messagesRequestSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z.array(messageParam),
  system: z.union([z.string(), z.array(textBlock)]).nullish(),
  stop_sequences: z.array(z.string()).nullish(),
  stream: z.boolean().nullish(),
  temperature: z.number().min(0).max(1).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).nullish(),
  // A tool with an input schema (or no server-tool type) is a client tool and is checked as one.
  tools: z.array(dispatched((value) => (typeof value === 'object' && value !== null && ('input_schema' in value || !typeOf(value) || typeOf(value) === 'custom') ? customTool : serverTool))).nullish(),
  tool_choice: toolChoice.nullish(),
  thinking: thinking.nullish(),
  output_config: z
    .looseObject({
      effort: z.enum(['low', 'medium', 'high', 'xhigh', 'max']).nullish(),
      format: z.looseObject({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).nullish(),
    })
    .nullish(),
});
export type MessagesRequestBody = z.output<typeof messagesRequestSchema>;

export const MESSAGES_CANONICAL_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'metadata',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
]);
