import type { Placeholders } from '../placeholders.js';
import { unmaskJson } from '../unmask-text.js';
import { UnmaskingChannels } from './unmasking-channel.js';
import { isObject, parseEventData, type StreamEvent, type StreamUnmasker } from './stream-event.js';

/** Texts a chat chunk's `delta` streams (wire-formats.md 1.4), besides tool-call arguments. */
const TEXT_FIELDS = ['content', 'reasoning', 'reasoning_content', 'refusal'] as const;

/**
 * A chat-completions stream unmasked: each choice's content (and reasoning, refusal) and each tool call's
 * arguments is a channel of its own; what a channel holds is given out in the same choice's finishing
 * chunk (a chunk may carry a delta and a `finish_reason` together), or in a chunk of its own before
 * `[DONE]` should the stream end without one.
 */
export class ChatStreamUnmasker implements StreamUnmasker {
  private readonly channels: UnmaskingChannels;
  /** The last chunk's identity, for a chunk made to carry held text at the end. */
  private identity: Record<string, unknown> = {};

  constructor(private readonly placeholders: Placeholders) {
    this.channels = new UnmaskingChannels(placeholders);
  }

  push(event: StreamEvent): StreamEvent[] {
    if (event.data === '[DONE]') return [...this.end(), event];
    if (!this.channels.holding && !event.data.includes('[')) return [event];
    const chunk = parseEventData(event);
    if (!chunk) return [event];
    this.identity = { id: chunk.id, object: chunk.object, created: chunk.created, model: chunk.model };
    if (Array.isArray(chunk.choices)) for (const choice of chunk.choices) if (isObject(choice)) this.unmaskChoice(choice);
    return [{ ...event, data: JSON.stringify(unmaskJson(chunk, this.placeholders)) }];
  }

  end(): StreamEvent[] {
    const choices = new Map<number, Record<string, unknown>>();
    for (const key of this.channels.heldKeys()) {
      const index = Number(key.slice(0, key.indexOf('/')));
      if (!choices.has(index)) choices.set(index, { index, delta: {}, finish_reason: null });
      flushInto(choices.get(index)!.delta as Record<string, unknown>, key, this.channels.flush(key));
    }
    if (choices.size === 0) return [];
    return [{ data: JSON.stringify({ ...this.identity, choices: [...choices.values()] }) }];
  }

  private unmaskChoice(choice: Record<string, unknown>): void {
    const index = typeof choice.index === 'number' ? choice.index : 0;
    if (!isObject(choice.delta)) choice.delta = {};
    const delta = choice.delta as Record<string, unknown>;
    for (const field of TEXT_FIELDS) {
      const text = delta[field];
      if (typeof text === 'string') delta[field] = this.channels.push(`${index}/${field}`, text);
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls) {
        if (!isObject(call) || !isObject(call.function) || typeof call.function.arguments !== 'string') continue;
        call.function.arguments = this.channels.push(`${index}/tool/${String(call.index ?? 0)}`, call.function.arguments, true);
      }
    }
    if (choice.finish_reason === null || choice.finish_reason === undefined) return;
    for (const key of this.channels.heldKeys()) if (key.startsWith(`${index}/`)) flushInto(delta, key, this.channels.flush(key));
  }
}

/** Adds held text to a delta: to its text field, or to the arguments of its tool call. */
function flushInto(delta: Record<string, unknown>, key: string, held: string): void {
  const [, field, toolIndex] = key.split('/');
  if (field !== 'tool') {
    delta[field!] = `${typeof delta[field!] === 'string' ? (delta[field!] as string) : ''}${held}`;
    return;
  }
  const calls = Array.isArray(delta.tool_calls) ? (delta.tool_calls as unknown[]) : (delta.tool_calls = []);
  const call = calls.find((entry) => isObject(entry) && String(entry.index) === toolIndex) as Record<string, unknown> | undefined;
  if (call && isObject(call.function)) call.function.arguments = `${String(call.function.arguments ?? '')}${held}`;
  else calls.push({ index: Number(toolIndex), function: { arguments: held } });
}
