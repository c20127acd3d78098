import type { FormatName } from '../../../src/formats/canonical/format-name.js';

/**
 * A provider request body flattened to what the model will read, one line per piece, independent of how each
 * format splits turns: `system:…`, `user:…`, `user:image:base64:<type>`, `assistant:…`,
 * `assistant:call:<id>:<name>:<args>`, `assistant:thinking:<text>:<signature>`, `tool:<id>:<content>`.
 */
export interface RequestView {
  lines: string[];
  maxTokens: number | undefined;
  stop: string[];
  tools: string[];
  toolChoice: string | undefined;
  reasoning: string | undefined;
}

type Loose = Record<string, unknown>;
const obj = (value: unknown): Loose => (typeof value === 'object' && value !== null ? (value as Loose) : {});
const arr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const args = (value: unknown): string => JSON.stringify(typeof value === 'string' ? JSON.parse(value || '{}') : value);
const textOf = (content: unknown): string => (typeof content === 'string' ? content : arr(content).map((part) => str(obj(part).text)).join(''));

function imageLine(url: string): string {
  const match = /^data:([^;]+);base64,/.exec(url);
  return match ? `user:image:base64:${match[1]}` : `user:image:url:${url}`;
}

function chatView(body: Loose): RequestView {
  const lines: string[] = [];
  for (const message of arr(body.messages).map(obj)) {
    switch (message.role) {
      case 'system':
      case 'developer':
        lines.push(`system:${textOf(message.content)}`);
        break;
      case 'user':
        if (typeof message.content === 'string') lines.push(`user:${message.content}`);
        for (const part of arr(message.content).map(obj)) {
          if (part.type === 'text') lines.push(`user:${str(part.text)}`);
          if (part.type === 'image_url') lines.push(imageLine(str(obj(part.image_url).url)));
        }
        break;
      case 'assistant':
        if (textOf(message.content) !== '') lines.push(`assistant:${textOf(message.content)}`);
        for (const call of arr(message.tool_calls).map(obj)) {
          const fn = obj(call.function);
          lines.push(`assistant:call:${str(call.id)}:${str(fn.name)}:${args(fn.arguments)}`);
        }
        break;
      case 'tool':
        lines.push(`tool:${str(message.tool_call_id)}:${textOf(message.content)}`);
        break;
    }
  }
  const choice = body.tool_choice;
  return {
    lines,
    maxTokens: (body.max_completion_tokens ?? body.max_tokens) as number | undefined,
    stop: arr(body.stop).map(str),
    tools: arr(body.tools).map((tool) => str(obj(obj(tool).function).name)),
    toolChoice: typeof choice === 'string' ? choice : choice ? `tool:${str(obj(obj(choice).function).name)}` : undefined,
    reasoning: body.reasoning_effort ? `effort:${str(body.reasoning_effort)}` : undefined,
  };
}

function messagesView(body: Loose): RequestView {
  const lines: string[] = arr(body.system).map((block) => `system:${str(obj(block).text)}`);
  if (typeof body.system === 'string') lines.push(`system:${body.system}`);
  for (const turn of arr(body.messages).map(obj)) {
    const role = str(turn.role);
    if (typeof turn.content === 'string') lines.push(`${role}:${turn.content}`);
    for (const block of arr(turn.content).map(obj)) {
      switch (block.type) {
        case 'text':
          lines.push(`${role}:${str(block.text)}`);
          break;
        case 'image': {
          const source = obj(block.source);
          lines.push(source.type === 'base64' ? `user:image:base64:${str(source.media_type)}` : `user:image:url:${str(source.url)}`);
          break;
        }
        case 'tool_use':
          lines.push(`assistant:call:${str(block.id)}:${str(block.name)}:${args(block.input)}`);
          break;
        case 'tool_result':
          lines.push(`tool:${str(block.tool_use_id)}:${textOf(block.content)}`);
          break;
        case 'thinking':
          lines.push(`assistant:thinking:${str(block.thinking)}:${str(block.signature)}`);
          break;
      }
    }
  }
  const choice = obj(body.tool_choice);
  const thinking = obj(body.thinking);
  return {
    lines,
    maxTokens: body.max_tokens as number | undefined,
    stop: arr(body.stop_sequences).map(str),
    tools: arr(body.tools).map((tool) => str(obj(tool).name)),
    toolChoice: choice.type === 'any' ? 'required' : choice.type === 'tool' ? `tool:${str(choice.name)}` : (choice.type as string | undefined),
    reasoning: thinking.type === 'enabled' ? `budget:${String(thinking.budget_tokens)}` : undefined,
  };
}

function responsesView(body: Loose): RequestView {
  const lines: string[] = [];
  if (typeof body.instructions === 'string') lines.push(`system:${body.instructions}`);
  if (typeof body.input === 'string') lines.push(`user:${body.input}`);
  for (const item of arr(body.input).map(obj)) {
    switch (item.type ?? 'message') {
      case 'message': {
        const role = item.role === 'developer' ? 'system' : str(item.role);
        if (typeof item.content === 'string') lines.push(`${role}:${item.content}`);
        for (const part of arr(item.content).map(obj)) {
          if (part.type === 'input_image') lines.push(imageLine(str(part.image_url)));
          else lines.push(`${role}:${str(part.text)}`);
        }
        break;
      }
      case 'function_call':
        lines.push(`assistant:call:${str(item.call_id)}:${str(item.name)}:${args(item.arguments)}`);
        break;
      case 'function_call_output':
        lines.push(`tool:${str(item.call_id)}:${textOf(item.output)}`);
        break;
    }
  }
  const choice = body.tool_choice;
  return {
    lines,
    maxTokens: body.max_output_tokens as number | undefined,
    stop: [],
    tools: arr(body.tools).map((tool) => str(obj(tool).name)),
    toolChoice: typeof choice === 'string' ? choice : choice ? `tool:${str(obj(choice).name)}` : undefined,
    reasoning: obj(body.reasoning).effort ? `effort:${str(obj(body.reasoning).effort)}` : undefined,
  };
}

export function requestView(format: FormatName, body: unknown): RequestView {
  switch (format) {
    case 'chat':
      return chatView(obj(body));
    case 'messages':
      return messagesView(obj(body));
    case 'responses':
      return responsesView(obj(body));
  }
}
