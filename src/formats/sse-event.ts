/**
 * One server-sent event as read from a provider or written to a client: the optional `event:` name and
 * the `data:` payload (lines joined with "\n"). Chat-completions streams have no event names; messages and
 * responses streams name every event after its JSON `type`.
 */
export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

/** Serialises one event in the SSE framing (`event: …\ndata: …\n\n`). */
export function formatSseEvent(event: SseEvent): string {
  const name = event.event ? `event: ${event.event}\n` : '';
  return `${name}data: ${event.data.replace(/\n/g, '\ndata: ')}\n\n`;
}
