import { isJsonObject, type JsonValue } from '../../../src/formats/json-value.js';
import type { FormatName } from '../../../src/formats/canonical/format-name.js';
import type { AnswerSpec } from '../../../ops/provider-answers/answer-spec.js';

/** What a user of each client format sees of an answer, to compare across the nine pairs. */
export interface AnswerView {
  text: string;
  reasoning: string;
  signature: string | undefined;
  tools: Array<{ id: string; name: string; input: unknown }>;
  stop: string;
  usage: { input: number; output: number; cached: number } | undefined;
}

type Loose = Record<string, unknown>;
const obj = (value: unknown): Loose => (typeof value === 'object' && value !== null ? (value as Loose) : {});
const arr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const parseArgs = (text: string): unknown => (text === '' ? {} : (JSON.parse(text) as unknown));

export function viewOfChat(body: unknown): AnswerView {
  const choice = obj(arr(obj(body).choices)[0]);
  const message = obj(choice.message);
  const details = arr(message.reasoning_details).map(obj);
  const usage = obj(obj(body).usage);
  return {
    text: str(message.content),
    reasoning: str(message.reasoning),
    signature: details.map((detail) => detail.signature).find((value): value is string => typeof value === 'string'),
    tools: arr(message.tool_calls).map((call) => {
      const fn = obj(obj(call).function);
      return { id: str(obj(call).id), name: str(fn.name), input: parseArgs(str(fn.arguments)) };
    }),
    stop: str(choice.finish_reason),
    usage: isJsonObject(obj(body).usage as JsonValue)
      ? { input: Number(usage.prompt_tokens), output: Number(usage.completion_tokens), cached: Number(obj(usage.prompt_tokens_details).cached_tokens ?? 0) }
      : undefined,
  };
}

export function viewOfMessages(body: unknown): AnswerView {
  const blocks = arr(obj(body).content).map(obj);
  const usage = obj(obj(body).usage);
  const thinking = blocks.filter((block) => block.type === 'thinking');
  return {
    text: blocks.filter((block) => block.type === 'text').map((block) => str(block.text)).join(''),
    reasoning: thinking.map((block) => str(block.thinking)).join(''),
    signature: thinking.map((block) => block.signature).find((value): value is string => typeof value === 'string' && value !== ''),
    tools: blocks.filter((block) => block.type === 'tool_use').map((block) => ({ id: str(block.id), name: str(block.name), input: block.input })),
    stop: str(obj(body).stop_reason) + (obj(body).stop_sequence ? `:${str(obj(body).stop_sequence)}` : ''),
    usage: { input: Number(usage.input_tokens), output: Number(usage.output_tokens), cached: Number(usage.cache_read_input_tokens ?? 0) },
  };
}

export function viewOfResponses(body: unknown): AnswerView {
  const items = arr(obj(body).output).map(obj);
  const usage = obj(obj(body).usage);
  const reasoning = items.filter((item) => item.type === 'reasoning');
  const incomplete = obj(obj(body).incomplete_details);
  return {
    text: items
      .filter((item) => item.type === 'message')
      .flatMap((item) => arr(item.content).map((part) => str(obj(part).text)))
      .join(''),
    reasoning: reasoning.flatMap((item) => arr(item.summary).map((part) => str(obj(part).text))).join(''),
    signature: reasoning.map((item) => item.encrypted_content).find((value): value is string => typeof value === 'string'),
    tools: items.filter((item) => item.type === 'function_call').map((item) => ({ id: str(item.call_id), name: str(item.name), input: parseArgs(str(item.arguments)) })),
    stop: str(obj(body).status) + (incomplete.reason ? `:${str(incomplete.reason)}` : ''),
    usage: isJsonObject(obj(body).usage as JsonValue)
      ? { input: Number(usage.input_tokens), output: Number(usage.output_tokens), cached: Number(obj(usage.input_tokens_details).cached_tokens ?? 0) }
      : undefined,
  };
}

export function viewOf(format: FormatName, body: unknown): AnswerView {
  switch (format) {
    case 'chat':
      return viewOfChat(body);
    case 'messages':
      return viewOfMessages(body);
    case 'responses':
      return viewOfResponses(body);
  }
}

/**
 * The view a client of `client` format must get when a provider of `provider` format gave `spec`. The
 * only losses are the documented ones: chat and responses providers do not say which stop sequence matched.
 */
export function expectedView(spec: AnswerSpec, provider: FormatName, client: FormatName): AnswerView {
  const stop = spec.stop === 'stop_sequence' && provider !== 'messages' ? 'end_turn' : spec.stop;
  let shown: string;
  switch (client) {
    case 'chat':
      shown = { end_turn: 'stop', stop_sequence: 'stop', max_tokens: 'length', tool_use: 'tool_calls' }[stop];
      break;
    case 'messages':
      shown = stop === 'stop_sequence' ? `stop_sequence:${spec.stopSequence ?? ''}` : stop;
      break;
    case 'responses':
      shown = stop === 'max_tokens' ? 'incomplete:max_output_tokens' : 'completed';
      break;
  }
  return {
    text: (spec.text ?? []).join(''),
    reasoning: (spec.reasoning?.chunks ?? []).join(''),
    signature: spec.reasoning?.signature,
    tools: (spec.tools ?? []).map((tool) => ({ id: tool.id, name: tool.name, input: parseArgs(tool.args.join('')) })),
    stop: shown,
    usage: { input: spec.usage.input, output: spec.usage.output, cached: spec.usage.cached },
  };
}
