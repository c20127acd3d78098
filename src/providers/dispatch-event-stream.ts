import type { SseEvent } from '../formats/sse-event.js';
import type { ProviderEventStream } from './provider-client.js';
import { ProviderStreamError, type ProviderStreamFailure } from './provider-stream-error.js';
import { SseParser } from './sse-parser.js';

/** What the stream needs from the call underneath it. */
export interface EventStreamUpstream {
  pause(): void;
  resume(): void;
  /** Aborts the upstream request; the call then reports no further events. */
  cancel(): void;
}

// Parsed events waiting for a slow consumer (e.g. a client reading slowly): past this the upstream
// socket is paused, so a stalled client cannot make the gateway buffer a whole answer.
const PAUSE_AT = 256;
const RESUME_AT = 32;
/**
 * The largest event a provider may send (16 Mi characters: ten times an image's base64). Past it the
 * stream is broken off as a connection failure would be (settled for what was received): a provider
 * sending one line without end must not make the gateway hold it all.
 */
export const MAX_EVENT_CHARS = 16 * 1024 * 1024;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

type Waiter = { resolve(result: IteratorResult<SseEvent, undefined>): void; reject(error: unknown): void };

/**
 * The events of a streamed answer, fed by undici's raw dispatch callbacks: each body chunk is parsed at
 * once and its events handed to the waiting consumer or queued. A hand-written async iterator, not a
 * generator over a Readable: one promise per event and no stream machinery on the hot path.
 */
export class DispatchEventStream implements ProviderEventStream, AsyncIterator<SseEvent, undefined> {
  private readonly parser = new SseParser();
  private readonly queue: SseEvent[] = [];
  private head = 0;
  private waiter: Waiter | undefined;
  private state: 'open' | 'ended' | 'failed' | 'cancelled' = 'open';
  private broken: { kind: ProviderStreamFailure; cause: unknown } | undefined;
  private received = 0;
  private iterated = false;
  private paused = false;
  private readonly emit = (event: SseEvent): void => this.push(event);

  constructor(private readonly upstream: EventStreamUpstream) {}

  get eventsReceived(): number {
    return this.received;
  }

  get failure(): ProviderStreamFailure | undefined {
    return this.broken?.kind;
  }

  [Symbol.asyncIterator](): AsyncIterator<SseEvent, undefined> {
    if (this.iterated) throw new Error('a provider event stream can be iterated only once');
    this.iterated = true;
    return this;
  }

  next(): Promise<IteratorResult<SseEvent, undefined>> {
    if (this.head < this.queue.length) return Promise.resolve(this.take());
    switch (this.state) {
      case 'open':
        return new Promise((resolve, reject) => {
          this.waiter = { resolve, reject };
        });
      case 'failed':
        return Promise.reject(this.takeFailure());
      case 'ended':
      case 'cancelled':
        return Promise.resolve(DONE);
    }
  }

  /** `break` out of a `for await` lands here. */
  return(): Promise<IteratorResult<SseEvent, undefined>> {
    this.cancel();
    return Promise.resolve(DONE);
  }

  cancel(): void {
    if (this.state !== 'open') return;
    this.state = 'cancelled';
    this.queue.length = 0;
    this.head = 0;
    this.waiter?.resolve(DONE);
    this.waiter = undefined;
    this.upstream.cancel();
  }

  /** A body chunk arrived. */
  write(chunk: Buffer): void {
    if (this.state !== 'open') return;
    this.parser.push(chunk, this.emit);
    if (this.parser.buffered > MAX_EVENT_CHARS) {
      this.fail('connection', new Error(`the provider sent an event longer than ${MAX_EVENT_CHARS} characters`));
      this.upstream.cancel();
      return;
    }
    if (!this.paused && this.queue.length - this.head >= PAUSE_AT) {
      this.paused = true;
      this.upstream.pause();
    }
  }

  /** The body ended normally; a last event without its blank line still counts. */
  end(): void {
    if (this.state !== 'open') return;
    this.parser.end(this.emit);
    this.state = 'ended';
    if (this.waiter && this.head >= this.queue.length) {
      this.waiter.resolve(DONE);
      this.waiter = undefined;
    }
  }

  /** The body broke off. Queued events are still delivered, then the error. */
  fail(kind: ProviderStreamFailure, cause: unknown): void {
    if (this.state !== 'open') return;
    this.state = 'failed';
    this.broken = { kind, cause };
    if (this.waiter && this.head >= this.queue.length) {
      this.waiter.reject(this.takeFailure());
      this.waiter = undefined;
    }
  }

  private push(event: SseEvent): void {
    if (this.waiter) {
      const waiter = this.waiter;
      this.waiter = undefined;
      this.received++;
      waiter.resolve({ done: false, value: event });
      return;
    }
    this.queue.push(event);
  }

  private take(): IteratorResult<SseEvent, undefined> {
    const value = this.queue[this.head]!;
    this.head++;
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    }
    this.received++;
    if (this.paused && this.queue.length - this.head <= RESUME_AT) {
      this.paused = false;
      this.upstream.resume();
    }
    return { done: false, value };
  }

  /** The error is thrown once; after it the iterator is done. */
  private takeFailure(): ProviderStreamError {
    const failure = this.broken!;
    this.state = 'ended';
    return new ProviderStreamError(failure.kind, this.received, { cause: failure.cause });
  }
}
