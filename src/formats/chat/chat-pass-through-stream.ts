import { isJsonObject, tryParseJson, type JsonObject } from '../json-value.js';
import type { SseEvent } from '../sse-event.js';
import { truncatedStreamError, type CanonicalError } from '../canonical/canonical-error.js';
import type { Usage } from '../../billing/usage.js';
import type { ClientStream, EncoderOptions } from '../canonical/stream-codec.js';
import { chatUsageAsCharged, usageFromChat } from './chat-usage.js';
import { errorFromOpenAiBody, renderOpenAiErrorBody } from './openai-error.js';

/**
 * A chat provider's stream to a chat client: chunks go out as they came, with `id` (the request id, spec
 * 2.1) and `model` rewritten by string replacement. The gateway always asked upstream for usage (DESIGN 7);
 * the usage it reads here is hidden from a client that did not ask for it (the empty-choices usage chunk is
 * dropped; usage riding on a content chunk, as some providers send it, is removed from that chunk).
 *
 * Fast path: every chunk of a stream repeats the first one's envelope (`id`, `created`, `model`,
 * fingerprint) before `"choices":`; that envelope is swapped for the gateway's by one comparison and one
 * concatenation. Only chunks whose remainder mentions usage or an error are parsed.
 */
/** An unescaped quote can only delimit a key: text inside a JSON string cannot fake these. */
const USAGE_OR_ERROR = /"usage":\{|"error":/;

export class ChatPassThroughStream implements ClientStream {
  private started = false;
  /** The first chunk's envelope up to `"choices":`, and the same with the gateway's id and model. */
  private upstreamHead = '';
  private clientHead = '';
  private terminated = false;
  usage: Usage | undefined;
  error: CanonicalError | undefined;

  constructor(private readonly options: EncoderOptions) {}

  get done(): boolean {
    return this.terminated;
  }

  push(event: SseEvent, out: SseEvent[] = []): SseEvent[] {
    if (this.terminated) return out;
    const data = event.data;
    if (data.startsWith('[DONE]')) {
      this.terminated = true;
      out.push(event);
      return out;
    }
    const head = this.upstreamHead;
    if (head !== '' && data.slice(0, head.length) === head && !USAGE_OR_ERROR.test(data.slice(head.length))) {
      out.push({ data: this.clientHead + data.slice(head.length) });
      return out;
    }
    return this.parsed(event, out);
  }

  end(out: SseEvent[] = []): SseEvent[] {
    return this.terminated ? out : this.fail(truncatedStreamError(), out);
  }

  fail(error: CanonicalError, out: SseEvent[] = []): SseEvent[] {
    if (this.terminated) return out;
    this.terminated = true;
    this.error = error;
    out.push({ data: JSON.stringify(renderOpenAiErrorBody(error)) });
    return out;
  }

  /** The few chunks that need a look inside: the first one, usage and errors. */
  private parsed(event: SseEvent, out: SseEvent[]): SseEvent[] {
    const chunk = tryParseJson(event.data);
    if (!isJsonObject(chunk)) {
      out.push(event);
      return out;
    }
    if (chunk.error !== undefined && chunk.error !== null) {
      this.terminated = true;
      this.error = errorFromOpenAiBody(chunk);
      out.push(event);
      return out;
    }
    if (!this.started) this.learnHead(chunk, event.data);
    if (isJsonObject(chunk.usage)) {
      const usage = usageFromChat(chunk.usage);
      this.usage = usage;
      if (!this.options.includeUsage) {
        if (Array.isArray(chunk.choices) && chunk.choices.length === 0) return out;
        const { usage: _hidden, ...rest } = chunk;
        out.push({ data: JSON.stringify(this.withIdentity(rest)) });
        return out;
      }
      if (usage) {
        out.push({ data: JSON.stringify(this.withIdentity({ ...chunk, usage: chatUsageAsCharged(chunk.usage, usage) })) });
        return out;
      }
    }
    out.push({ data: JSON.stringify(this.withIdentity(chunk)) });
    return out;
  }

  /** Only an envelope of plain fields can be swapped by string: it must hold the id and model as JSON wrote them. */
  private learnHead(chunk: JsonObject, data: string): void {
    this.started = true;
    const at = data.indexOf('"choices":');
    if (at <= 0 || typeof chunk.id !== 'string' || typeof chunk.model !== 'string') return;
    const head = data.slice(0, at);
    const id = `"id":${JSON.stringify(chunk.id)}`;
    const model = `"model":${JSON.stringify(chunk.model)}`;
    if (USAGE_OR_ERROR.test(head) || !head.includes(id) || !head.includes(model)) return;
    this.upstreamHead = head;
    this.clientHead = head.replace(id, () => `"id":${JSON.stringify(this.options.requestId)}`).replace(model, () => `"model":${JSON.stringify(this.options.model)}`);
  }

  private withIdentity(chunk: JsonObject): JsonObject {
    return { ...chunk, id: this.options.requestId, model: this.options.model };
  }
}
