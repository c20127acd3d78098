import type { Placeholders } from '../placeholders.js';
import { unmaskJson } from '../unmask-text.js';
import { UnmaskingChannels } from './unmasking-channel.js';
import { parseEventData, type StreamEvent, type StreamUnmasker } from './stream-event.js';

/**
 * The streamed texts of the responses format (wire-formats.md 3.3): each delta event type, the `.done`
 * event that closes its text, the field that tells its part apart within an output item, and whether it
 * is JSON text (a function call's arguments).
 */
const TEXTS: ReadonlyArray<{ readonly delta: string; readonly done: string; readonly part?: string; readonly inJson: boolean }> = [
  { delta: 'response.output_text.delta', done: 'response.output_text.done', part: 'content_index', inJson: false },
  { delta: 'response.refusal.delta', done: 'response.refusal.done', part: 'content_index', inJson: false },
  { delta: 'response.reasoning_text.delta', done: 'response.reasoning_text.done', part: 'content_index', inJson: false },
  { delta: 'response.reasoning_summary_text.delta', done: 'response.reasoning_summary_text.done', part: 'summary_index', inJson: false },
  { delta: 'response.function_call_arguments.delta', done: 'response.function_call_arguments.done', inJson: true },
];
const BY_DELTA = new Map(TEXTS.map((text) => [text.delta, text]));
const BY_DONE = new Map(TEXTS.map((text) => [text.done, text]));

/**
 * A responses stream unmasked: each streamed text is a channel; what a channel holds is given out in one
 * more delta event just before the `.done` event that closes it (which, like `response.completed`, carries
 * the whole text and is unmasked whole). Every event's `sequence_number` after an added one moves up by
 * one, so the numbers still increase one by one.
 */
export class ResponsesStreamUnmasker implements StreamUnmasker {
  private readonly channels: UnmaskingChannels;
  /** Events added so far: what every later `sequence_number` moves up by. */
  private added = 0;
  /** Each channel's last delta event (without its text), for the one that gives out held text. */
  private readonly lastDelta = new Map<string, Record<string, unknown>>();

  constructor(private readonly placeholders: Placeholders) {
    this.channels = new UnmaskingChannels(placeholders);
  }

  push(event: StreamEvent): StreamEvent[] {
    if (this.added === 0 && !this.channels.holding && !event.data.includes('[')) return [event];
    const data = parseEventData(event);
    if (!data) return [event];
    const type = String(data.type);
    const out: StreamEvent[] = [];
    const closing = BY_DONE.get(type);
    if (closing) {
      const key = channelKey(closing.delta, data, closing.part);
      const held = this.channels.flush(key);
      const last = this.lastDelta.get(key);
      if (held !== '' && last) {
        out.push(this.renumbered({ ...last, delta: held }, data.sequence_number));
        this.added++;
      }
    }
    const streamed = BY_DELTA.get(type);
    if (streamed && typeof data.delta === 'string') {
      const key = channelKey(type, data, streamed.part);
      this.lastDelta.set(key, { ...data });
      data.delta = this.channels.push(key, data.delta, streamed.inJson);
    }
    out.push(this.renumbered(unmaskJson(data, this.placeholders) as Record<string, unknown>, data.sequence_number, event.event));
    return out;
  }

  end(): StreamEvent[] {
    return this.channels.heldKeys().flatMap((key) => {
      const last = this.lastDelta.get(key);
      const held = this.channels.flush(key);
      if (!last) return [];
      const event = this.renumbered({ ...last, delta: held }, typeof last.sequence_number === 'number' ? last.sequence_number + 1 : undefined);
      this.added++;
      return [event];
    });
  }

  /** The event with its sequence number moved up by the events added before it. */
  private renumbered(data: Record<string, unknown>, sequence: unknown, name = String(data.type)): StreamEvent {
    const numbered = typeof sequence === 'number' ? { ...data, sequence_number: sequence + this.added } : data;
    return { event: name, data: JSON.stringify(numbered) };
  }
}

function channelKey(deltaType: string, data: Record<string, unknown>, part: string | undefined): string {
  return `${deltaType} ${String(data.output_index)} ${part ? String(data[part]) : ''}`;
}
