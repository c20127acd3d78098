import { expect } from 'chai';
import type { SseEvent } from '../../../src/formats/sse-event.js';
import { SseParser } from '../../../src/providers/sse-parser.js';

function parse(chunks: ReadonlyArray<string | Uint8Array>): SseEvent[] {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  const emit = (event: SseEvent): void => {
    events.push(event);
  };
  for (const chunk of chunks) parser.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk, emit);
  parser.end(emit);
  return events;
}

describe('SseParser', () => {
  it('reads data-only events (chat completions) and named events (messages, responses)', () => {
    expect(parse(['data: {"a":1}\n\ndata: [DONE]\n\n'])).to.deep.equal([{ data: '{"a":1}' }, { data: '[DONE]' }]);
    expect(parse(['event: message_start\ndata: {"type":"message_start"}\n\n'])).to.deep.equal([{ event: 'message_start', data: '{"type":"message_start"}' }]);
  });

  it('joins multi-line data with newlines, skips comments and ignores id and retry', () => {
    const text = ': OPENROUTER PROCESSING\n\nid: 7\nretry: 100\ndata: line one\ndata:line two\ndata\n\n';
    expect(parse([text])).to.deep.equal([{ data: 'line one\nline two\n' }]);
  });

  it('accepts CRLF and lone CR line ends, also when a CRLF is split between chunks', () => {
    expect(parse(['data: a\r\n\r\ndata: b\r\rdata: c\n\n'])).to.deep.equal([{ data: 'a' }, { data: 'b' }, { data: 'c' }]);
    expect(parse(['data: a\r', '\n\r', '\ndata: b\r', '\r'])).to.deep.equal([{ data: 'a' }, { data: 'b' }]);
  });

  it('dispatches a last event that has no blank line after it', () => {
    expect(parse(['data: one\n\ndata: last'])).to.deep.equal([{ data: 'one' }, { data: 'last' }]);
    expect(parse(['event: message_stop\ndata: {}\n'])).to.deep.equal([{ event: 'message_stop', data: '{}' }]);
  });

  it('does not dispatch an event without data, and drops a leading byte order mark', () => {
    expect(parse(['\ufeffdata: x\n\n'])).to.deep.equal([{ data: 'x' }]);
    expect(parse(['event: lonely\n\n'])).to.deep.equal([]);
  });

  it('gives the same events however the bytes are cut, multi-byte characters included', () => {
    const text = 'event: content_block_delta\r\ndata: {"text":"héllo 👋 wörld"}\r\n\r\n: ping\n\ndata: a\ndata: b\n\nevent: x\ndata: y';
    const whole = parse([text]);
    const bytes = Buffer.from(text);
    const byByte = parse([...bytes].map((byte) => Uint8Array.of(byte)));
    expect(byByte).to.deep.equal(whole);
    expect(whole).to.deep.equal([
      { event: 'content_block_delta', data: '{"text":"héllo 👋 wörld"}' },
      { data: 'a\nb' },
      { event: 'x', data: 'y' },
    ]);
  });

  it('emits an event as soon as its blank line arrives', () => {
    const parser = new SseParser();
    const events: SseEvent[] = [];
    parser.push(Buffer.from('data: first\n'), (event) => events.push(event));
    expect(events).to.have.length(0);
    parser.push(Buffer.from('\ndata: sec'), (event) => events.push(event));
    expect(events).to.deep.equal([{ data: 'first' }]);
  });
});
