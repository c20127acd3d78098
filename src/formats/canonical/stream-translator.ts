import type { SseEvent } from '../sse-event.js';
import type { CanonicalError } from './canonical-error.js';
import type { StopReason } from './canonical-response.js';
import type { CanonicalStreamEvent } from './canonical-stream-event.js';
import type { Usage } from '../../billing/usage.js';
import type { ClientStream, StreamDecoder, StreamEncoder } from './stream-codec.js';

/**
 * One provider stream translated into one client stream, event by event. Keeps what settlement needs
 * (usage, stop reason, error) without keeping the answer; `observe` sees every canonical event for a caller
 * that wants more (e.g. to count tokens when the provider reported no usage).
 */
export class StreamTranslator implements ClientStream {
  private readonly pending: CanonicalStreamEvent[] = [];
  private terminated = false;
  usage: Usage | undefined;
  stopReason: StopReason | undefined;
  error: CanonicalError | undefined;

  constructor(
    private readonly decoder: StreamDecoder,
    private readonly encoder: StreamEncoder,
    private readonly observe?: (event: CanonicalStreamEvent) => void,
  ) {}

  /** Whether the client stream has received its terminal event. */
  get done(): boolean {
    return this.terminated;
  }

  push(event: SseEvent, out: SseEvent[] = []): SseEvent[] {
    if (this.terminated) return out;
    this.decoder.push(event, this.pending);
    this.flush(out);
    return out;
  }

  /** The provider stream closed. */
  end(out: SseEvent[] = []): SseEvent[] {
    if (this.terminated) return out;
    this.decoder.end(this.pending);
    this.flush(out);
    return out;
  }

  /** Cuts the stream with an error of the gateway's own (spec 6.4: `key_revoked` is the last event). */
  fail(error: CanonicalError, out: SseEvent[] = []): SseEvent[] {
    if (this.terminated) return out;
    this.pending.push({ type: 'error', error });
    this.flush(out);
    return out;
  }

  private flush(out: SseEvent[]): void {
    const pending = this.pending;
    for (let i = 0; i < pending.length; i++) {
      const event = pending[i]!;
      if (this.terminated) break;
      if (event.type === 'start') {
        if (event.usage) this.usage = event.usage;
      } else if (event.type === 'finish') {
        this.terminated = true;
        this.stopReason = event.stopReason;
        if (event.usage) this.usage = event.usage;
      } else if (event.type === 'error') {
        this.terminated = true;
        this.error = event.error;
      }
      this.observe?.(event);
      this.encoder.push(event, out);
    }
    pending.length = 0;
  }
}
