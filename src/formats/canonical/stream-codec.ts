import type { JsonObject } from '../json-value.js';
import type { SseEvent } from '../sse-event.js';
import type { CanonicalError } from './canonical-error.js';
import type { CanonicalStreamEvent } from './canonical-stream-event.js';
import type { Usage } from '../../billing/usage.js';

/**
 * Provider stream → canonical events. Stateful and incremental: each provider event yields zero or more
 * canonical events, appended to `out` (the caller reuses the array; nothing is buffered beyond what the
 * protocol forces, such as a chat finish waiting for the usage chunk that follows it).
 */
export interface StreamDecoder {
  push(event: SseEvent, out: CanonicalStreamEvent[]): void;
  /** The provider stream closed. Emits what was held back, or an error when the stream was cut short. */
  end(out: CanonicalStreamEvent[]): void;
}

/** Canonical events → client stream events, appended to `out`. */
export interface StreamEncoder {
  push(event: CanonicalStreamEvent, out: SseEvent[]): void;
}

/** What every encoder shows the client in place of the provider's identity (spec 2.1, 2.2). */
export interface ClientIdentity {
  /** The gateway request id (`gen-…`). */
  readonly requestId: string;
  /** The model as the client named it (`<provider>/<model>`). */
  readonly model: string;
  /** Unix seconds, from the pipeline's clock. */
  readonly created: number;
  /**
   * Responses clients: the request's `text` setting (output format, verbosity), which OpenAI's `Response`
   * echoes and clients read back (LangChain parses a streamed structured answer only when it says
   * `json_schema`). Absent: plain text.
   */
  readonly responsesText?: JsonObject;
}

export interface EncoderOptions extends ClientIdentity {
  /** Chat only: the client asked for `stream_options.include_usage`. Other formats always carry usage. */
  readonly includeUsage: boolean;
  /**
   * The gateway's own count of the input (the reserve's upper bound), for a format that reports the
   * input before the provider has: messages `message_start`, when the provider's stream starts without it.
   */
  readonly inputTokens?: number;
}

/**
 * What the pipeline holds for one client stream, translated or passed through: it feeds provider events,
 * writes what comes back, and reads usage and outcome for settlement at the end.
 */
export interface ClientStream {
  push(event: SseEvent, out?: SseEvent[]): SseEvent[];
  /** The provider stream closed; a stream cut short ends with the client format's error event. */
  end(out?: SseEvent[]): SseEvent[];
  /** Ends the client stream with a gateway error (spec 6.4: `key_revoked` is the last event). */
  fail(error: CanonicalError, out?: SseEvent[]): SseEvent[];
  /** The client has received its terminal event. */
  readonly done: boolean;
  readonly usage: Usage | undefined;
  readonly error: CanonicalError | undefined;
}
