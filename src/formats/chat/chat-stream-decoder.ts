import { isJsonObject, tryParseJson, type JsonObject } from '../json-value.js';
import { literalBeforeTail, matchLiteralAt, toJsonLiteral, type JsonStringLiteral } from '../json-string-literal.js';
import type { SseEvent } from '../sse-event.js';
import { providerError, truncatedStreamError } from '../canonical/canonical-error.js';
import type { StopReason } from '../canonical/canonical-response.js';
import type { CanonicalStreamEvent } from '../canonical/canonical-stream-event.js';
import type { Usage } from '../../billing/usage.js';
import { syntheticToolCallId } from '../canonical/gateway-ids.js';
import type { StreamDecoder } from '../canonical/stream-codec.js';
import { stopReasonFromChat } from './chat-stop-reason.js';
import { usageFromChat } from './chat-usage.js';
import { errorFromOpenAiBody } from './openai-error.js';

const CONTENT_OPEN = '"choices":[{"index":0,"delta":{"content":';
/** After the literal: the rest of the only choice, then at most `usage: null` and OpenAI's padding. */
const CONTENT_TAIL = literalBeforeTail(String.raw`\},(?:"logprobs":null,)?"finish_reason":null\}\](?:,"usage":null)?(?:,"obfuscation":"[^"\\]*")?\}`);

/**
 * Chat chunks → canonical events (wire-formats.md 1.4). A finish is held until `[DONE]` because the usage
 * chunk (empty `choices`, requested with `stream_options.include_usage`) comes after the finish_reason chunk.
 *
 * Fast path: almost every chunk is a content delta whose envelope (id, created, model, fingerprint) repeats
 * the first chunk's and whose text is followed by a fixed tail. Such a chunk is recognised by one prefix
 * comparison and one sticky regex, and its text literal passed on undecoded; anything else is parsed.
 */
export class ChatStreamDecoder implements StreamDecoder {
  private started = false;
  private finished = false;
  /** The first chunk's envelope up to `"choices":` plus the content-delta opening; '' until known. */
  private contentPrefix = '';
  private id = '';
  private readonly toolByChatIndex = new Map<number, number>();
  private activeTool = -1;
  private toolCount = 0;
  private pendingStop: StopReason | undefined;
  private usage: Usage | undefined;

  push(event: SseEvent, out: CanonicalStreamEvent[]): void {
    if (this.finished) return;
    const data = event.data;
    const prefix = this.contentPrefix;
    if (prefix !== '' && data.slice(0, prefix.length) === prefix) {
      const literal = matchLiteralAt(CONTENT_TAIL, data, prefix.length);
      if (literal !== undefined) {
        if (literal.length > 2) this.text(literal, out);
        return;
      }
    }
    if (data.startsWith('[DONE]')) return this.finish(out);
    const chunk = tryParseJson(data);
    if (!isJsonObject(chunk)) return;
    if (chunk.error !== undefined && chunk.error !== null) {
      this.finished = true;
      out.push({ type: 'error', error: errorFromOpenAiBody(chunk) });
      return;
    }
    if (!this.started) this.start(chunk, data, out);
    if (isJsonObject(chunk.usage)) this.usage = usageFromChat(chunk.usage);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const choice of choices) {
      if (isJsonObject(choice) && (choice.index ?? 0) === 0) this.choice(choice, out);
    }
  }

  end(out: CanonicalStreamEvent[]): void {
    if (this.finished) return;
    if (this.pendingStop !== undefined) return this.finish(out);
    this.finished = true;
    out.push({ type: 'error', error: truncatedStreamError() });
  }

  private start(chunk: JsonObject, data: string, out: CanonicalStreamEvent[]): void {
    this.started = true;
    this.id = typeof chunk.id === 'string' ? chunk.id : '';
    out.push({ type: 'start', id: this.id, model: typeof chunk.model === 'string' ? chunk.model : '' });
    const choicesAt = data.indexOf('"choices":');
    // Only a head made of the envelope fields can be trusted to repeat; a head holding usage or an error
    // would let a different chunk through the fast path.
    if (choicesAt > 0 && chunk.usage == null && !data.slice(0, choicesAt).includes('"usage"')) this.contentPrefix = data.slice(0, choicesAt) + CONTENT_OPEN;
  }

  private text(literal: JsonStringLiteral, out: CanonicalStreamEvent[]): void {
    this.endTool(out);
    out.push({ type: 'text_delta', text: literal });
  }

  private choice(choice: JsonObject, out: CanonicalStreamEvent[]): void {
    const delta = isJsonObject(choice.delta) ? choice.delta : {};
    const reasoning = typeof delta.reasoning === 'string' ? delta.reasoning : typeof delta.reasoning_content === 'string' ? delta.reasoning_content : '';
    if (reasoning !== '') out.push({ type: 'reasoning_delta', text: toJsonLiteral(reasoning) });
    if (Array.isArray(delta.reasoning_details)) {
      for (const detail of delta.reasoning_details) {
        if (!isJsonObject(detail)) continue;
        if (reasoning === '' && typeof detail.text === 'string' && detail.text !== '') out.push({ type: 'reasoning_delta', text: toJsonLiteral(detail.text) });
        if (typeof detail.signature === 'string' && detail.signature !== '') out.push({ type: 'reasoning_signature', signature: detail.signature });
        if (detail.type === 'reasoning.encrypted' && typeof detail.data === 'string') out.push({ type: 'redacted_reasoning', data: detail.data });
      }
    }
    if (typeof delta.content === 'string' && delta.content !== '') this.text(toJsonLiteral(delta.content), out);
    if (typeof delta.refusal === 'string' && delta.refusal !== '') this.text(toJsonLiteral(delta.refusal), out);
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls) if (isJsonObject(call)) this.toolCall(call, out);
    }
    if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') {
      this.endTool(out);
      this.pendingStop = stopReasonFromChat(choice.finish_reason);
    }
  }

  private toolCall(call: JsonObject, out: CanonicalStreamEvent[]): void {
    const chatIndex = typeof call.index === 'number' ? call.index : 0;
    const fn = isJsonObject(call.function) ? call.function : {};
    let index = this.toolByChatIndex.get(chatIndex);
    if (index === undefined) {
      this.endTool(out);
      index = this.toolCount++;
      this.toolByChatIndex.set(chatIndex, index);
      this.activeTool = index;
      const id = typeof call.id === 'string' && call.id !== '' ? call.id : syntheticToolCallId(this.id, index);
      out.push({ type: 'tool_call_start', index, id, name: typeof fn.name === 'string' ? fn.name : '' });
    }
    // A fragment for a call that already ended cannot be placed in a messages or responses stream; OpenAI
    // streams calls one after the other, so this only guards against a broken provider.
    if (typeof fn.arguments === 'string' && fn.arguments !== '' && index === this.activeTool) {
      out.push({ type: 'tool_call_delta', index, arguments: toJsonLiteral(fn.arguments) });
    }
  }

  private endTool(out: CanonicalStreamEvent[]): void {
    if (this.activeTool < 0) return;
    out.push({ type: 'tool_call_end', index: this.activeTool });
    this.activeTool = -1;
  }

  private finish(out: CanonicalStreamEvent[]): void {
    if (this.finished) return;
    this.finished = true;
    this.endTool(out);
    if (!this.started) {
      out.push({ type: 'error', error: providerError(502, 'the provider stream ended without an answer') });
      return;
    }
    out.push({ type: 'finish', stopReason: this.pendingStop ?? 'end_turn', ...(this.usage ? { usage: this.usage } : {}) });
  }
}
