/** One server-sent event as the gateway writes it to the client (src/formats/sse-event.ts has the same shape). */
export interface StreamEvent {
  readonly event?: string;
  readonly data: string;
}

/**
 * A client's stream, in its own format, unmasked on the way out: events in, events out (an event may be
 * held back in part, or followed by one carrying what was held). `end` gives out whatever is still held.
 */
export interface StreamUnmasker {
  push(event: StreamEvent): StreamEvent[];
  end(): StreamEvent[];
}

/** The event's JSON object, or undefined for data that is not one (`[DONE]`, a comment). */
export function parseEventData(event: StreamEvent): Record<string, unknown> | undefined {
  if (!event.data.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(event.data);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
