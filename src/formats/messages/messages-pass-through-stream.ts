import { isJsonObject, tryParseJson, type JsonObject } from '../json-value.js';
import type { SseEvent } from '../sse-event.js';
import { truncatedStreamError, type CanonicalError } from '../canonical/canonical-error.js';
import type { Usage } from '../../billing/usage.js';
import type { ClientStream, EncoderOptions } from '../canonical/stream-codec.js';
import { errorFromMessagesBody, renderMessagesErrorBody } from './messages-error.js';
import { usageFromMessages } from './messages-usage.js';

/**
 * A messages provider's stream to a messages client. Content events go out untouched (the same objects);
 * only `message_start` (model) and `message_delta` are rewritten, because the gateway's `usage.input_tokens`
 * is the whole input, cache included (spec 2.2), where Anthropic's excludes the cache.
 */
export class MessagesPassThroughStream implements ClientStream {
  private terminated = false;
  private readonly usageRaw: JsonObject = {};
  usage: Usage | undefined;
  error: CanonicalError | undefined;

  constructor(private readonly options: EncoderOptions) {}

  get done(): boolean {
    return this.terminated;
  }

  push(event: SseEvent, out: SseEvent[] = []): SseEvent[] {
    if (this.terminated) return out;
    const data = event.data;
    if (data.startsWith('{"type":"content_block_') || data.startsWith('{"type": "ping"') || data.startsWith('{"type":"ping"')) {
      out.push(event);
      return out;
    }
    const payload = tryParseJson(data);
    if (!isJsonObject(payload)) {
      out.push(event);
      return out;
    }
    switch (payload.type) {
      case 'message_start': {
        const message = isJsonObject(payload.message) ? payload.message : {};
        const usage = isJsonObject(message.usage) ? this.merge(message.usage) : undefined;
        out.push({ event: 'message_start', data: JSON.stringify({ ...payload, message: { ...message, model: this.options.model, ...(usage ? { usage } : {}) } }) });
        return out;
      }
      case 'message_delta': {
        const usage = isJsonObject(payload.usage) ? this.merge(payload.usage) : undefined;
        out.push({ event: 'message_delta', data: JSON.stringify(usage ? { ...payload, usage } : payload) });
        return out;
      }
      case 'message_stop':
        this.terminated = true;
        break;
      case 'error':
        this.terminated = true;
        this.error = errorFromMessagesBody(payload);
        break;
    }
    out.push(event);
    return out;
  }

  end(out: SseEvent[] = []): SseEvent[] {
    return this.terminated ? out : this.fail(truncatedStreamError(), out);
  }

  fail(error: CanonicalError, out: SseEvent[] = []): SseEvent[] {
    if (this.terminated) return out;
    this.terminated = true;
    this.error = error;
    out.push({ event: 'error', data: JSON.stringify(renderMessagesErrorBody(error)) });
    return out;
  }

  /**
   * Counts are cumulative: the latest non-null value of each wins ([ANT-SDK] MessageStream). `message_start`
   * alone may carry the cache counts and their split (`message_delta` often says only `output_tokens`), so
   * both are merged before the usage is read.
   */
  private merge(reported: JsonObject): JsonObject {
    for (const [key, value] of Object.entries(reported)) if (value !== null) this.usageRaw[key] = value;
    this.usage = usageFromMessages(this.usageRaw);
    if (reported.input_tokens === undefined || reported.input_tokens === null) return reported;
    // the whole input as settled: the latest uncached, cache-read and cache-write counts together
    return { ...reported, input_tokens: this.usage?.inputTokens ?? 0 };
  }
}
