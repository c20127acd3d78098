import type { Dispatcher } from 'undici';
import { GatewayError } from '../errors/gateway-error.js';
import type { IncomingHttpHeaders } from 'node:http';
import { DispatchEventStream, type EventStreamUpstream } from './dispatch-event-stream.js';
import type { ProviderCall, ProviderResponse, ProviderResponseHeaders } from './provider-client.js';
import { ProviderDeadlineExceeded, gatewayErrorForTransportFailure, isTimeoutFailure } from './transport-failure.js';

const DEADLINE = new ProviderDeadlineExceeded('the provider did not finish within its timeout');

/**
 * The largest answer body the gateway takes from a provider (64 MiB: ten large images in base64). A body
 * is held whole before it is read, so a provider that sends without end would otherwise grow the
 * gateway's memory until its timeout; past the bound the call fails as `provider_error` (nothing charged).
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

class StreamCancelled extends Error {
  override name = 'StreamCancelled';
}

/**
 * One provider call on undici's raw dispatch API: undici calls back with the status line, each body
 * chunk and the end, and this object turns them into a `ProviderResponse` — the whole body, or events as
 * they are parsed. It also owns the call's deadline and its link to the caller's signal (it is the signal's
 * `abort` listener itself, and the timer gets it as an argument: no closures per call). Skipping
 * `pool.request()` saves its AbortController, response Readable and async-resource bookkeeping.
 */
export class ProviderCallHandler implements Dispatcher.DispatchHandler, EventStreamUpstream {
  readonly response: Promise<ProviderResponse>;
  private resolveResponse!: (response: ProviderResponse) => void;
  private rejectResponse!: (error: unknown) => void;
  private settled = false;
  private finished = false;
  private timedOut = false;
  private controller: Dispatcher.DispatchController | undefined;
  /** An abort asked for before undici handed over its controller (still queued or connecting). */
  private pendingAbort: Error | undefined;
  private readonly timer: NodeJS.Timeout;
  private status = 0;
  private headers: ProviderResponseHeaders | undefined;
  private chunks: Buffer[] | undefined;
  private length = 0;
  private events: DispatchEventStream | undefined;

  constructor(private readonly call: ProviderCall) {
    this.response = new Promise<ProviderResponse>((resolve, reject) => {
      this.resolveResponse = resolve;
      this.rejectResponse = reject;
    });
    this.timer = setTimeout(onDeadline, call.provider.timeoutMs, this);
    call.signal?.addEventListener('abort', this, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.pendingAbort) controller.abort(this.pendingAbort);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    if (status < 200) return; // 1xx: the real status line follows
    this.status = status;
    const forwarded = responseHeaders(headers);
    this.headers = forwarded;
    if (this.call.stream === true && status < 300 && isEventStream(forwarded.contentType)) {
      this.events = new DispatchEventStream(this);
      this.settle({ type: 'stream', status, headers: forwarded, events: this.events });
    } else {
      this.chunks = [];
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.events) {
      this.events.write(chunk);
    } else if (this.chunks) {
      // undici hands out a view of a fresh socket read: safe to keep without copying
      this.chunks.push(chunk);
      this.length += chunk.length;
      if (this.length > MAX_ANSWER_BYTES) {
        this.chunks = undefined;
        this.fail(new GatewayError('provider_error', `provider ${this.call.provider.name} sent an answer larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`));
        this.abortUpstream(new Error('the answer is larger than the gateway takes'));
      }
    }
  }

  onResponseEnd(): void {
    this.finish();
    if (this.events) {
      this.events.end();
      return;
    }
    const chunks = this.chunks ?? [];
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.length);
    this.settle({ type: 'body', status: this.status, headers: this.headers!, body });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.finish();
    if (this.events) {
      const kind = this.timedOut ? 'timeout' : this.callerAborted() || error instanceof StreamCancelled ? 'aborted' : isTimeoutFailure(error) ? 'timeout' : 'connection';
      this.events.fail(kind, error);
      return;
    }
    if (this.settled) return;
    if (this.callerAborted()) return this.fail(this.call.signal?.reason);
    this.fail(gatewayErrorForTransportFailure(this.timedOut ? DEADLINE : error, this.call.provider.name, this.headers ? 'body' : 'answer'));
  }

  /** The caller's signal fired (EventListener object form). */
  handleEvent(): void {
    const reason: unknown = this.call.signal?.reason;
    this.fail(reason);
    this.abortUpstream(reason instanceof Error ? reason : new Error('the caller aborted the provider call', { cause: reason }));
  }

  /** The deadline passed: answer 503 now, even while the request still waits for a socket. */
  expire(): void {
    this.timedOut = true;
    this.fail(gatewayErrorForTransportFailure(DEADLINE, this.call.provider.name, this.headers ? 'body' : 'answer'));
    this.abortUpstream(DEADLINE);
  }

  pause(): void {
    this.controller?.pause();
  }

  resume(): void {
    this.controller?.resume();
  }

  cancel(): void {
    this.abortUpstream(new StreamCancelled('the consumer stopped reading the provider stream'));
  }

  private abortUpstream(reason: Error): void {
    if (this.controller) this.controller.abort(reason);
    else this.pendingAbort ??= reason;
  }

  private callerAborted(): boolean {
    return !this.timedOut && this.call.signal?.aborted === true;
  }

  private settle(response: ProviderResponse): void {
    if (this.settled) return;
    this.settled = true;
    this.resolveResponse(response);
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.finish();
    this.rejectResponse(error);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.timer);
    this.call.signal?.removeEventListener('abort', this);
  }
}

function onDeadline(handler: ProviderCallHandler): void {
  handler.expire();
}

function responseHeaders(headers: IncomingHttpHeaders): ProviderResponseHeaders {
  return {
    contentType: first(headers['content-type']),
    retryAfter: first(headers['retry-after']),
    requestId: first(headers['x-request-id']) ?? first(headers['request-id']),
  };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isEventStream(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*text\/event-stream/i.test(contentType);
}
