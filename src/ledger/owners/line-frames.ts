import type { Socket } from 'node:net';

/** A line longer than this is not a frame of the account link: the connection is dropped. */
const MAX_FRAME_CHARS = 4 * 1024 * 1024;

/**
 * Newline-delimited JSON on a socket, both ways (JSON.stringify escapes every newline inside a value).
 * Frames written in one turn of the event loop leave in one socket write: a busy account's commands and
 * answers travel in batches, as they are decided.
 */
export class LineFrames {
  private received = '';
  private outbox: string[] = [];
  private flushScheduled = false;

  constructor(
    readonly socket: Socket,
    onFrame: (frame: unknown) => void,
  ) {
    socket.setEncoding('utf8');
    socket.setNoDelay(true);
    socket.on('data', (chunk: string) => {
      this.received += chunk;
      let end = this.received.indexOf('\n');
      if (end < 0) {
        if (this.received.length > MAX_FRAME_CHARS) socket.destroy(new Error('account link: frame too long'));
        return;
      }
      let start = 0;
      while (end >= 0) {
        const line = this.received.slice(start, end);
        start = end + 1;
        let frame: unknown;
        try {
          frame = JSON.parse(line);
        } catch {
          socket.destroy(new Error('account link: a frame is not JSON'));
          return;
        }
        onFrame(frame);
        if (socket.destroyed) return;
        end = this.received.indexOf('\n', start);
      }
      this.received = this.received.slice(start);
    });
  }

  send(frame: unknown): void {
    this.outbox.push(JSON.stringify(frame), '\n');
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const text = this.outbox.join('');
      this.outbox = [];
      if (!this.socket.destroyed) this.socket.write(text);
    });
  }
}
