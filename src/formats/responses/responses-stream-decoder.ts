import { isJsonObject, tryParseJson, type JsonObject } from '../json-value.js';
import { literalBeforeTail, matchLiteralAt, toJsonLiteral, type JsonStringLiteral } from '../json-string-literal.js';
import type { SseEvent } from '../sse-event.js';
import { providerError, truncatedStreamError } from '../canonical/canonical-error.js';
import type { CanonicalStreamEvent } from '../canonical/canonical-stream-event.js';
import type { StreamDecoder } from '../canonical/stream-codec.js';
import { errorFromOpenAiBody } from '../chat/openai-error.js';
import { stopReasonOfOutcome } from './responses-status.js';
import { usageFromResponses } from './responses-usage.js';

/** `response.output_text.delta` with only the keys OpenAI sends, in any order; group 1 is the delta literal. */
const TEXT_DELTA_OPEN = '{"type":"response.output_text.delta"';
const SEQUENCED_OPEN = '{"type":"response.output_text.delta","sequence_number":';
const DIGITS = /\d+/y;
const TEXT_DELTA_TAIL = literalBeforeTail(String.raw`,"logprobs":\[\](?:,"obfuscation":"[^"\\]*")?\}`);
const TEXT_DELTA =
  /^\{"type":"response\.output_text\.delta"(?:,"(?:sequence_number":\d+|item_id":"[^"\\]*"|output_index":\d+|content_index":\d+))*,"delta":("(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")(?:,"(?:logprobs":\[\]|sequence_number":\d+|item_id":"[^"\\]*"|output_index":\d+|content_index":\d+|obfuscation":"[^"\\]*"))*\}$/;

interface ItemState {
  readonly type: string;
  readonly tool: number;
  deltas: boolean;
  summaryIndex: number;
}

const PARAGRAPH = toJsonLiteral('\n\n');

/**
 * Responses SSE → canonical events (wire-formats.md 3.3). Tool calls are keyed by `output_index`; an item
 * whose content arrives only in `output_item.done` (some compatible servers send no deltas) is replayed
 * from there. Reasoning summary parts are joined with a blank line, as the non-streaming parser does.
 */
export class ResponsesStreamDecoder implements StreamDecoder {
  private finished = false;
  private readonly items = new Map<number, ItemState>();
  private toolCount = 0;
  /** Text deltas of the current message item carry no index on the fast path; one message is open at a time. */
  private messageHasText = false;
  /** `,"item_id":…,"output_index":…,"content_index":0,"delta":` of the open message item; '' if none. */
  private textDeltaMiddle = '';

  push(event: SseEvent, out: CanonicalStreamEvent[]): void {
    if (this.finished) return;
    const data = event.data;
    if (this.textDeltaMiddle !== '' && data.slice(0, SEQUENCED_OPEN.length) === SEQUENCED_OPEN) {
      const literal = this.fastTextDelta(data);
      if (literal !== undefined) {
        if (literal.length > 2) {
          this.messageHasText = true;
          out.push({ type: 'text_delta', text: literal });
        }
        return;
      }
    }
    if (data.startsWith(TEXT_DELTA_OPEN)) {
      const match = TEXT_DELTA.exec(data);
      if (match) {
        const literal = match[1] as JsonStringLiteral;
        if (literal.length > 2) {
          this.messageHasText = true;
          out.push({ type: 'text_delta', text: literal });
        }
        return;
      }
    }
    const payload = tryParseJson(data);
    if (!isJsonObject(payload)) return;
    const outputIndex = typeof payload.output_index === 'number' ? payload.output_index : -1;
    switch (payload.type) {
      case 'response.created': {
        const response = isJsonObject(payload.response) ? payload.response : {};
        out.push({ type: 'start', id: typeof response.id === 'string' ? response.id : '', model: typeof response.model === 'string' ? response.model : '' });
        return;
      }
      case 'response.output_item.added':
        return this.itemAdded(outputIndex, isJsonObject(payload.item) ? payload.item : {}, out);
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (typeof payload.delta === 'string' && payload.delta !== '') {
          this.messageHasText = true;
          out.push({ type: 'text_delta', text: toJsonLiteral(payload.delta) });
        }
        return;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        return this.reasoningDelta(outputIndex, payload, out);
      case 'response.function_call_arguments.delta': {
        const item = this.items.get(outputIndex);
        if (item && item.tool >= 0 && typeof payload.delta === 'string' && payload.delta !== '') {
          item.deltas = true;
          out.push({ type: 'tool_call_delta', index: item.tool, arguments: toJsonLiteral(payload.delta) });
        }
        return;
      }
      case 'response.output_item.done':
        return this.itemDone(outputIndex, isJsonObject(payload.item) ? payload.item : {}, out);
      case 'response.completed':
      case 'response.incomplete': {
        this.finished = true;
        const response = isJsonObject(payload.response) ? payload.response : {};
        const details = isJsonObject(response.incomplete_details) ? response.incomplete_details : {};
        const usage = usageFromResponses(response.usage);
        out.push({ type: 'finish', stopReason: stopReasonOfOutcome(response.status, details.reason, this.toolCount > 0), ...(usage ? { usage } : {}) });
        return;
      }
      case 'response.failed': {
        this.finished = true;
        const response = isJsonObject(payload.response) ? payload.response : {};
        const error = isJsonObject(response.error) ? response.error : {};
        out.push({ type: 'error', error: errorFromOpenAiBody({ error }, error.code === 'rate_limit_exceeded' ? 429 : undefined) });
        return;
      }
      case 'error':
      case 'response.error':
        // OpenAI's `error` event is flat {code, message, param}; OpenRouter nests it under `error` (wire-formats.md 6).
        this.finished = true;
        out.push({ type: 'error', error: isJsonObject(payload.error) ? errorFromOpenAiBody(payload) : errorFromOpenAiBody({ error: payload }) });
        return;
      default:
        return;
    }
  }

  end(out: CanonicalStreamEvent[]): void {
    if (this.finished) return;
    this.finished = true;
    out.push({ type: 'error', error: this.items.size === 0 ? providerError(502, 'the provider stream ended without an answer') : truncatedStreamError() });
  }

  /**
   * OpenAI's key order (`sequence_number` second, then the item's fixed fields): one prefix comparison, the
   * digits, one comparison of the item's fields, one sticky regex. Other orders take the general regex.
   */
  private fastTextDelta(data: string): JsonStringLiteral | undefined {
    DIGITS.lastIndex = SEQUENCED_OPEN.length;
    if (!DIGITS.test(data)) return undefined;
    const middle = this.textDeltaMiddle;
    const at = DIGITS.lastIndex;
    if (data.slice(at, at + middle.length) !== middle) return undefined;
    return matchLiteralAt(TEXT_DELTA_TAIL, data, at + middle.length);
  }

  private itemAdded(outputIndex: number, item: JsonObject, out: CanonicalStreamEvent[]): void {
    const type = typeof item.type === 'string' ? item.type : '';
    this.textDeltaMiddle =
      type === 'message' && typeof item.id === 'string' ? `,"item_id":${JSON.stringify(item.id)},"output_index":${outputIndex},"content_index":0,"delta":` : '';
    let tool = -1;
    if (type === 'function_call') {
      tool = this.toolCount++;
      const id = typeof item.call_id === 'string' ? item.call_id : typeof item.id === 'string' ? item.id : '';
      out.push({ type: 'tool_call_start', index: tool, id, name: typeof item.name === 'string' ? item.name : '' });
    }
    if (type === 'message') this.messageHasText = false;
    this.items.set(outputIndex, { type, tool, deltas: false, summaryIndex: -1 });
    if (tool >= 0 && typeof item.arguments === 'string' && item.arguments !== '') {
      this.items.get(outputIndex)!.deltas = true;
      out.push({ type: 'tool_call_delta', index: tool, arguments: toJsonLiteral(item.arguments) });
    }
  }

  private reasoningDelta(outputIndex: number, payload: JsonObject, out: CanonicalStreamEvent[]): void {
    if (typeof payload.delta !== 'string' || payload.delta === '') return;
    const item = this.items.get(outputIndex);
    const part = typeof payload.summary_index === 'number' ? payload.summary_index : 0;
    if (item) {
      if (item.deltas && part !== item.summaryIndex) out.push({ type: 'reasoning_delta', text: PARAGRAPH });
      item.summaryIndex = part;
      item.deltas = true;
    }
    out.push({ type: 'reasoning_delta', text: toJsonLiteral(payload.delta) });
  }

  private itemDone(outputIndex: number, item: JsonObject, out: CanonicalStreamEvent[]): void {
    const state = this.items.get(outputIndex);
    switch (item.type) {
      case 'function_call':
        if (!state || state.tool < 0) return;
        if (!state.deltas && typeof item.arguments === 'string' && item.arguments !== '') {
          out.push({ type: 'tool_call_delta', index: state.tool, arguments: toJsonLiteral(item.arguments) });
        }
        out.push({ type: 'tool_call_end', index: state.tool });
        return;
      case 'message':
        if (this.messageHasText) return;
        for (const part of Array.isArray(item.content) ? item.content : []) {
          const text = isJsonObject(part) ? (typeof part.text === 'string' ? part.text : typeof part.refusal === 'string' ? part.refusal : '') : '';
          if (text !== '') out.push({ type: 'text_delta', text: toJsonLiteral(text) });
        }
        return;
      case 'reasoning': {
        if (!state?.deltas) {
          const summary = (Array.isArray(item.summary) ? item.summary : []).flatMap((part) => (isJsonObject(part) && typeof part.text === 'string' && part.text !== '' ? [part.text] : []));
          if (summary.length > 0) out.push({ type: 'reasoning_delta', text: toJsonLiteral(summary.join('\n\n')) });
          if (typeof item.encrypted_content === 'string' && summary.length === 0) {
            out.push({ type: 'redacted_reasoning', data: item.encrypted_content });
            return;
          }
        }
        // The encrypted content plays the role of a signature: it closes the reasoning block.
        if (typeof item.encrypted_content === 'string') out.push({ type: 'reasoning_signature', signature: item.encrypted_content });
        return;
      }
      default:
        return;
    }
  }
}
