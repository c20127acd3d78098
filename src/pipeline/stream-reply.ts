import type { Response } from 'express';
import type { StreamReply } from '../endpoints/endpoint-spec.js';
import { formatSseEvent, type SseEvent } from '../formats/sse-event.js';

/**
 * A streaming endpoint's events, written as SSE frames as they come. Frames produced from one provider
 * event are written under one cork, so a burst goes out in one packet instead of one write each (writes
 * per event dominated the profile).
 */
export function streamReply(res: Response): StreamReply {
  return {
    start() {
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
      res.flushHeaders();
    },
    write: (events) => writeEvents(res, events),
    end() {
      res.end();
    },
  };
}

function writeEvents(res: Response, events: readonly SseEvent[]): void {
  if (events.length === 0 || res.writableEnded || res.destroyed) return;
  if (events.length === 1) {
    res.write(formatSseEvent(events[0]!));
    return;
  }
  res.cork();
  for (const event of events) res.write(formatSseEvent(event));
  process.nextTick(() => res.uncork());
}
