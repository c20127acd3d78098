import type { ServerResponse } from 'node:http';
import type { StreamReply } from '../endpoints/endpoint-spec.js';
import { formatSseEvent, type SseEvent } from '../formats/sse-event.js';

/**
 * A streaming endpoint's events, written as SSE frames as they come. Frames produced from one provider
 * event are written under one cork, so a burst goes out in one packet instead of one write each (writes
 * per event dominated the profile). `firstEventAt` is the client's time to first byte for the metrics:
 * headers alone do not count, the first event does.
 */
export function streamReply(res: ServerResponse): StreamReply & { readonly firstEventAt: number | undefined } {
  let firstEventAt: number | undefined;
  return {
    get firstEventAt() {
      return firstEventAt;
    },
    start() {
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
      res.flushHeaders();
    },
    write(events) {
      if (firstEventAt === undefined && events.length > 0) firstEventAt = performance.now();
      return writeEvents(res, events);
    },
    drain: () =>
      new Promise<void>((resolve) => {
        if (!res.writableNeedDrain || res.destroyed) return resolve();
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      }),
    end() {
      res.end();
    },
  };
}

/** Returns false when the client is not keeping up (the socket's buffer is full). */
function writeEvents(res: ServerResponse, events: readonly SseEvent[]): boolean {
  if (res.writableEnded || res.destroyed) return true;
  if (events.length === 0) return !res.writableNeedDrain;
  if (events.length === 1) return res.write(formatSseEvent(events[0]!));
  res.cork();
  let room = true;
  for (const event of events) room = res.write(formatSseEvent(event));
  process.nextTick(() => res.uncork());
  return room;
}
