import type { Readable } from 'node:stream';
import type { Provider } from '../catalog/catalog.js';
import type { SseEvent } from '../formats/sse-event.js';
import type { ProviderStreamFailure } from './provider-stream-error.js';

export type ProviderHttpMethod = 'GET' | 'POST' | 'DELETE';

/** One call to a provider. The body is sent as given (JSON text, or a multipart stream), never re-encoded. */
export interface ProviderCall {
  readonly provider: Provider;
  /** Appended to `provider.baseUrl`, e.g. `/chat/completions` (OpenAI-style) or `/v1/messages` (Anthropic). */
  readonly path: string;
  /** Default: POST when there is a body, GET otherwise. */
  readonly method?: ProviderHttpMethod;
  readonly body?: Buffer | string | Readable;
  /** The length of a streamed body, when known (sent as Content-Length instead of a chunked upload). */
  readonly contentLength?: number;
  /** Default `application/json` when there is a body; multipart callers pass their boundary here. */
  readonly contentType?: string;
  /**
   * Extra request headers, names in lower case (e.g. `anthropic-beta`). Authentication headers are the
   * transport's and always win; `anthropic-version` given here replaces the default.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** The client's disconnect: aborting it aborts the provider call (and the upstream connection). */
  readonly signal?: AbortSignal;
  /** A streamed answer is expected: a 2xx `text/event-stream` answer then comes back as events. */
  readonly stream?: boolean;
}

/** The answer headers the gateway may forward or log; everything else stays with the transport. */
export interface ProviderResponseHeaders {
  readonly contentType: string | undefined;
  /** As sent (seconds or an HTTP date); spec 7.3: a provider error with Retry-After may be retried after it. */
  readonly retryAfter: string | undefined;
  /** `x-request-id` (OpenAI) or `request-id` (Anthropic). */
  readonly requestId: string | undefined;
}

export interface ProviderBodyResponse {
  readonly type: 'body';
  readonly status: number;
  readonly headers: ProviderResponseHeaders;
  /** The whole answer, as received: a provider error is returned to the client unchanged (spec 7.3). */
  readonly body: Buffer;
}

export interface ProviderStreamResponse {
  readonly type: 'stream';
  readonly status: number;
  readonly headers: ProviderResponseHeaders;
  readonly events: ProviderEventStream;
}

export type ProviderResponse = ProviderBodyResponse | ProviderStreamResponse;

/**
 * A provider's file (a video), streamed as it arrives and never held whole in memory: the status, the
 * headers a download forwards, and the body. The consumer reads the body to its end or destroys it.
 */
export interface ProviderDownload {
  readonly status: number;
  readonly headers: ProviderResponseHeaders & {
    readonly contentLength: string | undefined;
    /** Set on a `206` to a `Range` request. */
    readonly contentRange: string | undefined;
  };
  readonly body: Readable;
}

/**
 * The events of a 2xx `text/event-stream` answer, parsed as bytes arrive. Iterate it once. It throws a
 * `ProviderStreamError` when the stream breaks (connection lost, deadline, abort) after the events it
 * already yielded. Leaving the loop early (or `cancel()`) closes the upstream request and ends the
 * iteration without an error. Events not yet read are held (up to a few hundred, then the upstream socket
 * is paused), so a slow client slows the provider instead of filling memory.
 */
export interface ProviderEventStream extends AsyncIterable<SseEvent> {
  /** Events yielded so far. */
  readonly eventsReceived: number;
  /** Why the stream broke off, once it has (also after the consumer caught the error); undefined otherwise. */
  readonly failure: ProviderStreamFailure | undefined;
  /** Stops reading and closes the upstream request; safe to call at any time, also before iterating. */
  cancel(): void;
}

/**
 * The port the request pipeline calls providers through.
 * Rejects with `GatewayError('provider_error')` when the provider cannot be reached, with
 * `GatewayError('service_unavailable', …, {retryAfterSeconds: 1})` when it does not answer in time,
 * and with the signal's reason when the caller aborted. A non-2xx answer is not an error: it resolves.
 */
export interface ProviderClient {
  call(call: ProviderCall): Promise<ProviderResponse>;
  /**
   * A `GET` of a file: the status line within the provider's timeout, then the body at the pace the consumer
   * reads it (a pause of longer than the timeout between two pieces fails it). Rejects as `call` does.
   */
  download(call: ProviderCall): Promise<ProviderDownload>;
  /** Lets calls in flight finish, then closes every pooled connection (graceful shutdown). */
  close(): Promise<void>;
}
