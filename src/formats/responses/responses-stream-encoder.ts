import { EMPTY_LITERAL, joinJsonLiterals, type JsonStringLiteral } from '../json-string-literal.js';
import type { SseEvent } from '../sse-event.js';
import type { CanonicalError } from '../canonical/canonical-error.js';
import type { CanonicalStreamEvent, StreamFinish } from '../canonical/canonical-stream-event.js';
import { responsesItemId, type ResponsesItemPrefix } from '../canonical/gateway-ids.js';
import type { EncoderOptions, StreamEncoder } from '../canonical/stream-codec.js';
import { responsesEnvelope } from './responses-envelope.js';
import { outcomeOfStopReason, type ResponsesOutcome } from './responses-status.js';
import { usageToResponses } from './responses-usage.js';

interface OpenItem {
  readonly kind: 'message' | 'reasoning' | 'function_call';
  readonly outputIndex: number;
  readonly id: string;
  /** JSON of `"item_id":…,"output_index":…` shared by the item's events. */
  readonly at: string;
  readonly pieces: JsonStringLiteral[];
  readonly callId?: string;
  readonly name?: string;
  readonly toolIndex?: number;
  /** Prefix of the item's hot delta event, up to its `sequence_number` value. */
  readonly deltaType: string;
}

/**
 * Canonical events → responses SSE (wire-formats.md 3.3): `response.created` → `response.in_progress` →
 * per item `output_item.added` … `output_item.done` → `response.completed` | `response.incomplete` |
 * `response.failed`, every event with an increasing `sequence_number` (Portkey omits it).
 *
 * The format makes the final event carry the whole response, so the encoder keeps the delta literals of
 * the open item and the JSON of finished items — never decoded, joined once when the item closes. The
 * final response is the non-streaming renderer's envelope, so openai's `ResponseStream` accumulates the
 * stream to exactly the non-streamed answer.
 */
export class ResponsesStreamEncoder implements StreamEncoder {
  private sequence = 0;
  private started = false;
  private ended = false;
  private open: OpenItem | undefined;
  private readonly items: string[] = [];

  constructor(private readonly options: EncoderOptions) {}

  push(event: CanonicalStreamEvent, out: SseEvent[]): void {
    if (this.ended) return;
    if (!this.started) this.start(out);
    switch (event.type) {
      case 'start':
        return;
      case 'text_delta': {
        const item = this.open?.kind === 'message' ? this.open : this.openMessage(out);
        item.pieces.push(event.text);
        out.push({ event: 'response.output_text.delta', data: `${item.deltaType}${this.sequence++},${item.at},"content_index":0,"delta":${event.text},"logprobs":[]}` });
        return;
      }
      case 'reasoning_delta': {
        const item = this.open?.kind === 'reasoning' ? this.open : this.openReasoning(out);
        if (item.pieces.length === 0) this.emit(out, 'response.reasoning_summary_part.added', `${item.at},"summary_index":0,"part":{"type":"summary_text","text":""}`);
        item.pieces.push(event.text);
        out.push({ event: 'response.reasoning_summary_text.delta', data: `${item.deltaType}${this.sequence++},${item.at},"summary_index":0,"delta":${event.text}}` });
        return;
      }
      case 'reasoning_signature':
        this.closeItem(out, this.open?.kind === 'reasoning' ? this.open : this.openReasoning(out), event.signature);
        return;
      case 'redacted_reasoning':
        this.closeItem(out, this.openReasoning(out), event.data);
        return;
      case 'tool_call_start':
        this.openItem(out, 'function_call', 'fc', { callId: event.id, name: event.name, toolIndex: event.index }, 'response.function_call_arguments.delta');
        return;
      case 'tool_call_delta': {
        const item = this.open;
        if (item?.kind !== 'function_call' || item.toolIndex !== event.index) return;
        item.pieces.push(event.arguments);
        out.push({ event: 'response.function_call_arguments.delta', data: `${item.deltaType}${this.sequence++},${item.at},"delta":${event.arguments}}` });
        return;
      }
      case 'tool_call_end':
        if (this.open?.kind === 'function_call' && this.open.toolIndex === event.index) this.closeItem(out, this.open);
        return;
      case 'finish':
        return this.finish(event, out);
      case 'error':
        return this.fail(event.error, out);
      default: {
        const unreachable: never = event;
        throw new Error(`unknown canonical event ${JSON.stringify(unreachable)}`);
      }
    }
  }

  private emit(out: SseEvent[], type: string, fields: string): void {
    out.push({ event: type, data: `{"type":"${type}","sequence_number":${this.sequence++},${fields}}` });
  }

  private start(out: SseEvent[]): void {
    this.started = true;
    const response = JSON.stringify(responsesEnvelope(this.options, { status: 'in_progress' }, [], null));
    this.emit(out, 'response.created', `"response":${response}`);
    this.emit(out, 'response.in_progress', `"response":${response}`);
  }

  private openItem(
    out: SseEvent[],
    kind: OpenItem['kind'],
    prefix: ResponsesItemPrefix,
    call: { callId?: string; name?: string; toolIndex?: number },
    deltaEvent: string,
  ): OpenItem {
    if (this.open) this.closeItem(out, this.open);
    const outputIndex = this.items.length;
    const id = responsesItemId(prefix, this.options.requestId, outputIndex);
    const item: OpenItem = {
      kind,
      outputIndex,
      id,
      at: `"item_id":${JSON.stringify(id)},"output_index":${outputIndex}`,
      pieces: [],
      ...call,
      deltaType: `{"type":"${deltaEvent}","sequence_number":`,
    };
    this.open = item;
    this.emit(out, 'response.output_item.added', `"output_index":${outputIndex},"item":${this.itemJson(item, 'in_progress', EMPTY_LITERAL)}`);
    return item;
  }

  private openMessage(out: SseEvent[]): OpenItem {
    const item = this.openItem(out, 'message', 'msg', {}, 'response.output_text.delta');
    this.emit(out, 'response.content_part.added', `${item.at},"content_index":0,"part":{"type":"output_text","text":"","annotations":[],"logprobs":[]}`);
    return item;
  }

  private openReasoning(out: SseEvent[]): OpenItem {
    return this.openItem(out, 'reasoning', 'rs', {}, 'response.reasoning_summary_text.delta');
  }

  /** The item as `output_item.added` (empty) or `.done` (complete) shows it; same shape as the renderer's. */
  private itemJson(item: OpenItem, status: 'in_progress' | 'completed', text: JsonStringLiteral, signature?: string): string {
    const id = JSON.stringify(item.id);
    switch (item.kind) {
      case 'message': {
        const content = status === 'completed' ? `[{"type":"output_text","text":${text},"annotations":[],"logprobs":[]}]` : '[]';
        return `{"id":${id},"type":"message","status":"${status}","role":"assistant","content":${content}}`;
      }
      case 'reasoning': {
        const summary = item.pieces.length > 0 && status === 'completed' ? `[{"type":"summary_text","text":${text}}]` : '[]';
        const encrypted = signature === undefined ? '' : `,"encrypted_content":${JSON.stringify(signature)}`;
        return `{"id":${id},"type":"reasoning","summary":${summary}${encrypted}}`;
      }
      case 'function_call':
        return `{"id":${id},"type":"function_call","status":"${status}","call_id":${JSON.stringify(item.callId)},"name":${JSON.stringify(item.name)},"arguments":${text}}`;
    }
  }

  private closeItem(out: SseEvent[], item: OpenItem, signature?: string): void {
    this.open = undefined;
    const text = item.pieces.length === 0 ? EMPTY_LITERAL : joinJsonLiterals(item.pieces);
    switch (item.kind) {
      case 'message':
        this.emit(out, 'response.output_text.done', `${item.at},"content_index":0,"text":${text},"logprobs":[]`);
        this.emit(out, 'response.content_part.done', `${item.at},"content_index":0,"part":{"type":"output_text","text":${text},"annotations":[],"logprobs":[]}`);
        break;
      case 'reasoning':
        if (item.pieces.length > 0) {
          this.emit(out, 'response.reasoning_summary_text.done', `${item.at},"summary_index":0,"text":${text}`);
          this.emit(out, 'response.reasoning_summary_part.done', `${item.at},"summary_index":0,"part":{"type":"summary_text","text":${text}}`);
        }
        break;
      case 'function_call':
        this.emit(out, 'response.function_call_arguments.done', `${item.at},"name":${JSON.stringify(item.name)},"arguments":${text}`);
        break;
    }
    const json = this.itemJson(item, 'completed', text, signature);
    this.items.push(json);
    this.emit(out, 'response.output_item.done', `"output_index":${item.outputIndex},"item":${json}`);
  }

  private final(out: SseEvent[], type: string, outcome: ResponsesOutcome, usage: string, error?: CanonicalError): void {
    this.ended = true;
    // The envelope is serialised once with an empty output, which then receives the items' JSON as is.
    const envelope = JSON.stringify(responsesEnvelope(this.options, outcome, [], null, error));
    // Function replacers: a `$` in the answer must not be read as a replacement pattern.
    const response = envelope.replace('"usage":null', () => `"usage":${usage}`).replace('"output":[]', () => `"output":[${this.items.join(',')}]`);
    this.emit(out, type, `"response":${response}`);
  }

  private finish(event: StreamFinish, out: SseEvent[]): void {
    if (this.open) this.closeItem(out, this.open);
    const outcome = outcomeOfStopReason(event.stopReason);
    const usage = event.usage ? JSON.stringify(usageToResponses(event.usage)) : 'null';
    const type = outcome.status === 'completed' ? 'response.completed' : outcome.status === 'incomplete' ? 'response.incomplete' : 'response.failed';
    this.final(out, type, outcome, usage, outcome.status === 'failed' ? { status: 502, type: 'api_error', code: 'provider_error', message: 'the provider failed the response' } : undefined);
  }

  /** A failure mid-answer: the items already finished stay in the failed response; the open one is cut. */
  private fail(error: CanonicalError, out: SseEvent[]): void {
    this.open = undefined;
    this.final(out, 'response.failed', { status: 'failed' }, 'null', error);
  }
}
