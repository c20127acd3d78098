import type { Placeholders } from '../placeholders.js';
import { unmaskJson } from '../unmask-text.js';
import { UnmaskingChannels } from './unmasking-channel.js';
import { isObject, parseEventData, type StreamEvent, type StreamUnmasker } from './stream-event.js';

/** The text field of each delta type of a `content_block_delta` (wire-formats.md 2.3), and whether it is JSON. */
const DELTA_TEXT: Readonly<Record<string, { readonly field: string; readonly inJson: boolean }>> = {
  text_delta: { field: 'text', inJson: false },
  input_json_delta: { field: 'partial_json', inJson: true },
  thinking_delta: { field: 'thinking', inJson: false },
};

/**
 * A messages stream unmasked: each content block is a channel; what a block's channel holds is given out
 * in a `content_block_delta` of its own just before the block's `content_block_stop`, so every block still
 * opens, streams and closes once, in order.
 */
export class MessagesStreamUnmasker implements StreamUnmasker {
  private readonly channels: UnmaskingChannels;
  /** Each open block's delta type, for the delta that gives out held text. */
  private readonly deltaTypes = new Map<string, string>();

  constructor(private readonly placeholders: Placeholders) {
    this.channels = new UnmaskingChannels(placeholders);
  }

  push(event: StreamEvent): StreamEvent[] {
    if (!this.channels.holding && !event.data.includes('[')) return [event];
    const data = parseEventData(event);
    if (!data) return [event];
    if (data.type === 'content_block_stop') return [...this.flush(String(data.index)), event];
    if (data.type === 'message_stop') return [...this.end(), event];
    if (data.type === 'content_block_delta' && isObject(data.delta)) {
      const delta = data.delta;
      const text = DELTA_TEXT[String(delta.type)];
      const index = String(data.index);
      if (text && typeof delta[text.field] === 'string') {
        this.deltaTypes.set(index, String(delta.type));
        delta[text.field] = this.channels.push(index, delta[text.field] as string, text.inJson);
      }
    }
    return [{ ...event, data: JSON.stringify(unmaskJson(data, this.placeholders)) }];
  }

  end(): StreamEvent[] {
    return this.channels.heldKeys().flatMap((index) => this.flush(index));
  }

  private flush(index: string): StreamEvent[] {
    const held = this.channels.flush(index);
    const type = this.deltaTypes.get(index);
    if (held === '' || type === undefined) return [];
    const data = { type: 'content_block_delta', index: Number(index), delta: { type, [DELTA_TEXT[type]!.field]: held } };
    return [{ event: 'content_block_delta', data: JSON.stringify(data) }];
  }
}
