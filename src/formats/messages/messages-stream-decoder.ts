import { isJsonObject, tryParseJson, type JsonObject } from '../json-value.js';
import { literalBeforeTail, matchLiteralAt, toJsonLiteral, type JsonStringLiteral } from '../json-string-literal.js';
import type { SseEvent } from '../sse-event.js';
import { truncatedStreamError } from '../canonical/canonical-error.js';
import type { StopReason } from '../canonical/canonical-response.js';
import type { CanonicalStreamEvent } from '../canonical/canonical-stream-event.js';
import { createUsage, type Usage } from '../../billing/usage.js';
import type { StreamDecoder } from '../canonical/stream-codec.js';
import { errorFromMessagesBody } from './messages-error.js';
import { stopReasonFromMessages } from './messages-stop-reason.js';
import { usageFromMessages } from './messages-usage.js';

const DELTA_OPEN: Readonly<Record<'text' | 'thinking' | 'tool', string>> = {
  text: ',"delta":{"type":"text_delta","text":',
  thinking: ',"delta":{"type":"thinking_delta","thinking":',
  tool: ',"delta":{"type":"input_json_delta","partial_json":',
};
const DELTA_TAIL = literalBeforeTail(String.raw`\}\}`);

type BlockKind = 'text' | 'thinking' | 'tool' | 'other';

/**
 * Messages SSE → canonical events (wire-formats.md 2.3). `ping` and unknown events are ignored (the docs
 * say to tolerate them); `message_delta` usage is cumulative and overwrites what `message_start` said.
 *
 * Fast path: `content_block_delta` payloads have a fixed key order, so the delta of the block that is open
 * is recognised by one prefix comparison (prepared when the block started) and sliced out unparsed.
 */
export class MessagesStreamDecoder implements StreamDecoder {
  private finished = false;
  private readonly blocks: BlockKind[] = [];
  private readonly toolOfBlock: number[] = [];
  private toolCount = 0;
  private usageRaw: JsonObject = {};
  private stopReason: StopReason = 'end_turn';
  private stopSequence: string | undefined;
  private deltaPrefix = '';
  private deltaBlock = -1;

  push(event: SseEvent, out: CanonicalStreamEvent[]): void {
    if (this.finished) return;
    const data = event.data;
    const prefix = this.deltaPrefix;
    if (prefix !== '' && data.slice(0, prefix.length) === prefix) {
      const literal = matchLiteralAt(DELTA_TAIL, data, prefix.length);
      if (literal !== undefined) return this.emitDelta(this.blocks[this.deltaBlock]!, this.deltaBlock, literal, out);
    }
    const payload = tryParseJson(data);
    if (!isJsonObject(payload)) return;
    switch (payload.type) {
      case 'message_start':
        return this.start(payload, out);
      case 'content_block_start':
        return this.blockStart(payload, out);
      case 'content_block_delta':
        return this.delta(payload, out);
      case 'content_block_stop': {
        const index = typeof payload.index === 'number' ? payload.index : -1;
        if (this.blocks[index] === 'tool') out.push({ type: 'tool_call_end', index: this.toolOfBlock[index]! });
        return;
      }
      case 'message_delta': {
        const delta = isJsonObject(payload.delta) ? payload.delta : {};
        if (typeof delta.stop_reason === 'string') this.stopReason = stopReasonFromMessages(delta.stop_reason);
        if (typeof delta.stop_sequence === 'string') this.stopSequence = delta.stop_sequence;
        if (isJsonObject(payload.usage)) {
          for (const [key, value] of Object.entries(payload.usage)) if (value !== null) this.usageRaw[key] = value;
        }
        return;
      }
      case 'message_stop':
        this.finished = true;
        out.push({
          type: 'finish',
          stopReason: this.stopReason,
          ...(this.stopSequence === undefined ? {} : { stopSequence: this.stopSequence }),
          usage: usageFromMessages(this.usageRaw) ?? createUsage(),
        });
        return;
      case 'error':
        this.finished = true;
        out.push({ type: 'error', error: errorFromMessagesBody(payload) });
        return;
      default:
        return;
    }
  }

  end(out: CanonicalStreamEvent[]): void {
    if (this.finished) return;
    this.finished = true;
    out.push({ type: 'error', error: truncatedStreamError() });
  }

  private emitDelta(kind: BlockKind, index: number, literal: JsonStringLiteral, out: CanonicalStreamEvent[]): void {
    if (literal.length === 2) return;
    if (kind === 'text') out.push({ type: 'text_delta', text: literal });
    else if (kind === 'thinking') out.push({ type: 'reasoning_delta', text: literal });
    else if (kind === 'tool') out.push({ type: 'tool_call_delta', index: this.toolOfBlock[index]!, arguments: literal });
  }

  private start(payload: JsonObject, out: CanonicalStreamEvent[]): void {
    const message = isJsonObject(payload.message) ? payload.message : {};
    if (isJsonObject(message.usage)) this.usageRaw = { ...message.usage };
    const usage: Usage | undefined = usageFromMessages(message.usage);
    out.push({
      type: 'start',
      id: typeof message.id === 'string' ? message.id : '',
      model: typeof message.model === 'string' ? message.model : '',
      ...(usage ? { usage } : {}),
    });
  }

  private blockStart(payload: JsonObject, out: CanonicalStreamEvent[]): void {
    const index = typeof payload.index === 'number' ? payload.index : this.blocks.length;
    const block = isJsonObject(payload.content_block) ? payload.content_block : {};
    const kind = block.type === 'text' ? 'text' : block.type === 'thinking' ? 'thinking' : block.type === 'tool_use' ? 'tool' : undefined;
    this.deltaBlock = index;
    this.deltaPrefix = kind ? `{"type":"content_block_delta","index":${index}${DELTA_OPEN[kind]}` : '';
    switch (block.type) {
      case 'text':
        this.blocks[index] = 'text';
        if (typeof block.text === 'string' && block.text !== '') out.push({ type: 'text_delta', text: toJsonLiteral(block.text) });
        return;
      case 'thinking':
        this.blocks[index] = 'thinking';
        if (typeof block.thinking === 'string' && block.thinking !== '') out.push({ type: 'reasoning_delta', text: toJsonLiteral(block.thinking) });
        return;
      case 'redacted_thinking':
        this.blocks[index] = 'other';
        if (typeof block.data === 'string') out.push({ type: 'redacted_reasoning', data: block.data });
        return;
      case 'tool_use': {
        this.blocks[index] = 'tool';
        const tool = this.toolCount++;
        this.toolOfBlock[index] = tool;
        out.push({ type: 'tool_call_start', index: tool, id: typeof block.id === 'string' ? block.id : '', name: typeof block.name === 'string' ? block.name : '' });
        // Anthropic starts with `input: {}` and streams the JSON; a proxy that sends the whole input here
        // would otherwise lose it.
        if (isJsonObject(block.input) && Object.keys(block.input).length > 0) {
          out.push({ type: 'tool_call_delta', index: tool, arguments: toJsonLiteral(JSON.stringify(block.input)) });
        }
        return;
      }
      default:
        // Server-tool blocks and future types: their deltas are skipped.
        this.blocks[index] = 'other';
        return;
    }
  }

  private delta(payload: JsonObject, out: CanonicalStreamEvent[]): void {
    const index = typeof payload.index === 'number' ? payload.index : -1;
    const kind = this.blocks[index];
    const delta = isJsonObject(payload.delta) ? payload.delta : {};
    if (kind === undefined) return;
    switch (delta.type) {
      case 'text_delta':
        if (typeof delta.text === 'string') this.emitDelta(kind, index, toJsonLiteral(delta.text), out);
        return;
      case 'thinking_delta':
        if (typeof delta.thinking === 'string') this.emitDelta(kind, index, toJsonLiteral(delta.thinking), out);
        return;
      case 'input_json_delta':
        if (typeof delta.partial_json === 'string') this.emitDelta(kind, index, toJsonLiteral(delta.partial_json), out);
        return;
      case 'signature_delta':
        if (kind === 'thinking' && typeof delta.signature === 'string') out.push({ type: 'reasoning_signature', signature: delta.signature });
        return;
      default:
        return;
    }
  }
}
