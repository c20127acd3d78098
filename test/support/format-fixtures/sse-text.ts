import { readFileSync } from 'node:fs';
import type { SseEvent } from '../../../src/formats/sse-event.js';

/** Splits SSE text (`event:` / `data:` lines, blank-line separated) into events. */
export function parseSseText(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\n\n+/)) {
    let name: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) name = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0) events.push(name === undefined ? { data: data.join('\n') } : { event: name, data: data.join('\n') });
  }
  return events;
}

export function readSseFixture(name: string): SseEvent[] {
  return parseSseText(readFileSync(new URL(`./${name}`, import.meta.url), 'utf8'));
}
