import { isJsonObject, tryParseJson, type JsonObject } from '../json-value.js';
import type { SseEvent } from '../sse-event.js';
import { truncatedStreamError, type CanonicalError } from '../canonical/canonical-error.js';
import type { Usage } from '../../billing/usage.js';
import type { ClientStream, EncoderOptions } from '../canonical/stream-codec.js';
import { errorFromOpenAiBody } from '../chat/openai-error.js';
import { responsesEnvelope, responsesErrorCode } from './responses-envelope.js';
import { usageFromResponses } from './responses-usage.js';

const LIFECYCLE = new Set(['response.created', 'response.queued', 'response.in_progress', 'response.completed', 'response.incomplete', 'response.failed']);
const SEQUENCE = /"sequence_number":(\d+)/;

/**
 * A responses provider's stream to a responses client. Item events go out untouched; the lifecycle events
 * that carry the whole response (created, in_progress, completed…) get the client's model name, and the
 * terminal one yields usage. Item events — nearly all of them — are recognised by their SSE event name and
 * forwarded as the same objects; the last one is kept so that a gateway error can continue its
 * `sequence_number`.
 */
export class ResponsesPassThroughStream implements ClientStream {
  private terminated = false;
  private lastData = '';
  private created: JsonObject | undefined;
  usage: Usage | undefined;
  error: CanonicalError | undefined;

  constructor(private readonly options: EncoderOptions) {}

  get done(): boolean {
    return this.terminated;
  }

  push(event: SseEvent, out: SseEvent[] = []): SseEvent[] {
    if (this.terminated) return out;
    const data = event.data;
    this.lastData = data;
    const type = event.event ?? /^\{"type":"([^"]*)"/.exec(data)?.[1];
    if (type === undefined || !LIFECYCLE.has(type)) {
      if (type === 'error' || type === 'response.error') this.terminal(errorFromOpenAiBody(tryParseJson(data)));
      out.push(event);
      return out;
    }
    const payload = tryParseJson(data);
    const response = isJsonObject(payload) && isJsonObject(payload.response) ? payload.response : undefined;
    if (!isJsonObject(payload) || !response) {
      out.push(event);
      return out;
    }
    if (type === 'response.created') this.created = response;
    if (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') {
      this.terminated = true;
      this.usage = usageFromResponses(response.usage);
      if (type === 'response.failed') this.error = errorFromOpenAiBody({ error: isJsonObject(response.error) ? response.error : {} });
    }
    out.push({ event: type, data: JSON.stringify({ ...payload, response: { ...response, model: this.options.model } }) });
    return out;
  }

  end(out: SseEvent[] = []): SseEvent[] {
    return this.terminated ? out : this.fail(truncatedStreamError(), out);
  }

  fail(error: CanonicalError, out: SseEvent[] = []): SseEvent[] {
    if (this.terminated) return out;
    this.terminal(error);
    let sequence = Number(SEQUENCE.exec(this.lastData)?.[1] ?? -1);
    const response = this.created
      ? { ...this.created, model: this.options.model, status: 'failed', error: { code: responsesErrorCode(error), message: error.message } }
      : responsesEnvelope(this.options, { status: 'failed' }, [], null, error);
    if (!this.created) {
      out.push({ event: 'response.created', data: JSON.stringify({ type: 'response.created', sequence_number: ++sequence, response: { ...response, status: 'in_progress', error: null } }) });
    }
    out.push({ event: 'response.failed', data: JSON.stringify({ type: 'response.failed', sequence_number: ++sequence, response }) });
    return out;
  }

  private terminal(error: CanonicalError): void {
    this.terminated = true;
    this.error = error;
  }
}
