import type { SseEvent } from '../formats/sse-event.js';

const LINE_FEED = 10;
const COLON = 58;
const SPACE = 32;
const BYTE_ORDER_MARK = 0xfeff;

/**
 * Incremental server-sent-events parser (https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream):
 * bytes in, `SseEvent`s out as soon as their blank line arrives. Lines may end in LF, CRLF or a lone CR,
 * and a CRLF may be split across two chunks; `:` lines are comments (OpenRouter sends `: OPENROUTER PROCESSING`
 * keep-alives); several `data:` lines join with "\n"; `id:` and `retry:` are ignored (we never reconnect).
 * Unlike a browser, `end()` dispatches a last event that lacks its blank line: some servers close right
 * after the final `data:` line, and dropping it would lose the usage chunk we bill from.
 */
export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private pending = '';
  private skipLineFeed = false;
  private started = false;
  private eventName: string | undefined;
  private data: string | undefined;

  /** Characters held for the event being read (its unfinished line and data lines): what an endless line would grow. */
  get buffered(): number {
    return this.pending.length + (this.data?.length ?? 0);
  }

  push(chunk: Uint8Array, emit: (event: SseEvent) => void): void {
    this.consume(this.decoder.decode(chunk, { stream: true }), emit);
  }

  /** Call once after the last chunk. */
  end(emit: (event: SseEvent) => void): void {
    this.consume(this.decoder.decode(), emit);
    if (this.pending.length > 0) {
      const line = this.pending;
      this.pending = '';
      this.processLine(line, emit);
    }
    this.dispatch(emit);
  }

  private consume(text: string, emit: (event: SseEvent) => void): void {
    const length = text.length;
    if (length === 0) return;
    let position = 0;
    if (!this.started) {
      this.started = true;
      if (text.charCodeAt(0) === BYTE_ORDER_MARK) position = 1;
    }
    if (this.skipLineFeed) {
      this.skipLineFeed = false;
      if (text.charCodeAt(position) === LINE_FEED) position++;
    }
    let nextLineFeed = text.indexOf('\n', position);
    let nextCarriageReturn = text.indexOf('\r', position);
    while (nextLineFeed !== -1 || nextCarriageReturn !== -1) {
      let end: number;
      let after: number;
      if (nextCarriageReturn === -1 || (nextLineFeed !== -1 && nextLineFeed < nextCarriageReturn)) {
        end = nextLineFeed;
        after = end + 1;
      } else {
        end = nextCarriageReturn;
        after = end + 1;
        if (after === length) this.skipLineFeed = true;
        else if (text.charCodeAt(after) === LINE_FEED) after++;
      }
      const piece = text.slice(position, end);
      let line = piece;
      if (this.pending.length > 0) {
        line = this.pending + piece;
        this.pending = '';
      }
      this.processLine(line, emit);
      position = after;
      if (nextLineFeed !== -1 && nextLineFeed < position) nextLineFeed = text.indexOf('\n', position);
      if (nextCarriageReturn !== -1 && nextCarriageReturn < position) nextCarriageReturn = text.indexOf('\r', position);
    }
    if (position < length) this.pending += position === 0 ? text : text.slice(position);
  }

  private processLine(line: string, emit: (event: SseEvent) => void): void {
    if (line.length === 0) {
      this.dispatch(emit);
      return;
    }
    if (line.charCodeAt(0) === COLON) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = '';
    if (colon !== -1) {
      const start = line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1;
      value = line.slice(start);
    }
    if (field === 'data') this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    else if (field === 'event') this.eventName = value.length > 0 ? value : undefined;
  }

  private dispatch(emit: (event: SseEvent) => void): void {
    const data = this.data;
    const eventName = this.eventName;
    this.data = undefined;
    this.eventName = undefined;
    // an event without data lines is not dispatched (spec), e.g. a lone `event:` line
    if (data === undefined) return;
    emit(eventName === undefined ? { data } : { event: eventName, data });
  }
}
