import type { SseEvent } from '../sse-event.js';
import type { CanonicalStreamEvent, StreamFinish } from '../canonical/canonical-stream-event.js';
import { createUsage, type Usage } from '../../billing/usage.js';
import { messagesMessageId } from '../canonical/gateway-ids.js';
import type { EncoderOptions, StreamEncoder } from '../canonical/stream-codec.js';
import { renderMessagesErrorBody } from './messages-error.js';
import { stopReasonToMessages } from './messages-stop-reason.js';
import { usageToMessages } from './messages-usage.js';

type OpenBlock = 'none' | 'text' | 'thinking' | 'redacted' | 'tool';

const MESSAGE_STOP: SseEvent = { event: 'message_stop', data: '{"type":"message_stop"}' };

/**
 * Canonical events → messages SSE (wire-formats.md 2.3). The grammar peers got wrong (peer-pitfalls.md):
 * exactly one `message_start`; blocks opened lazily, each closed exactly once before the next opens, indices
 * 0,1,2… in order; tool_use blocks flat `{type,id,name,input:{}}` (Portkey nested them) with arguments as
 * `input_json_delta`; `message_delta` (stop reason + cumulative usage) then `message_stop`. A failure is
 * `event: error`, the last event ([ANT-SDK] MessageStream throws on it).
 */
export class MessagesStreamEncoder implements StreamEncoder {
  private started = false;
  private ended = false;
  private open: OpenBlock = 'none';
  private openTool = -1;
  private blockIndex = -1;
  private deltaHead = '';
  private startUsage: Usage | undefined;

  constructor(private readonly options: EncoderOptions) {}

  push(event: CanonicalStreamEvent, out: SseEvent[]): void {
    if (this.ended) return;
    if (!this.started && event.type !== 'error') this.start(event.type === 'start' ? event.usage : undefined, out);
    switch (event.type) {
      case 'start':
        return;
      case 'text_delta':
        if (this.open !== 'text') this.openBlock('text', '{"type":"text","text":""}', ',"delta":{"type":"text_delta","text":', out);
        out.push({ event: 'content_block_delta', data: `${this.deltaHead}${event.text}}}` });
        return;
      case 'reasoning_delta':
        if (this.open !== 'thinking') this.openBlock('thinking', '{"type":"thinking","thinking":"","signature":""}', ',"delta":{"type":"thinking_delta","thinking":', out);
        out.push({ event: 'content_block_delta', data: `${this.deltaHead}${event.text}}}` });
        return;
      case 'reasoning_signature':
        // A signature with no visible reasoning before it (e.g. encrypted-only reasoning) still needs its block.
        if (this.open !== 'thinking') this.openBlock('thinking', '{"type":"thinking","thinking":"","signature":""}', ',"delta":{"type":"thinking_delta","thinking":', out);
        out.push({
          event: 'content_block_delta',
          data: `{"type":"content_block_delta","index":${this.blockIndex},"delta":{"type":"signature_delta","signature":${JSON.stringify(event.signature)}}}`,
        });
        this.closeBlock(out);
        return;
      case 'redacted_reasoning':
        this.openBlock('redacted', JSON.stringify({ type: 'redacted_thinking', data: event.data }), '', out);
        this.closeBlock(out);
        return;
      case 'tool_call_start':
        this.openBlock('tool', `{"type":"tool_use","id":${JSON.stringify(event.id)},"name":${JSON.stringify(event.name)},"input":{}}`, ',"delta":{"type":"input_json_delta","partial_json":', out);
        this.openTool = event.index;
        return;
      case 'tool_call_delta':
        // A fragment for a block already closed cannot be placed (the chat decoder never sends one).
        if (this.open === 'tool' && this.openTool === event.index) out.push({ event: 'content_block_delta', data: `${this.deltaHead}${event.arguments}}}` });
        return;
      case 'tool_call_end':
        if (this.open === 'tool' && this.openTool === event.index) this.closeBlock(out);
        return;
      case 'finish':
        return this.finish(event, out);
      case 'error':
        this.ended = true;
        out.push({ event: 'error', data: JSON.stringify(renderMessagesErrorBody(event.error)) });
        return;
      default: {
        const unreachable: never = event;
        throw new Error(`unknown canonical event ${JSON.stringify(unreachable)}`);
      }
    }
  }

  private start(usage: Usage | undefined, out: SseEvent[]): void {
    this.started = true;
    this.startUsage = usage;
    const message = {
      id: messagesMessageId(this.options.requestId),
      type: 'message',
      role: 'assistant',
      model: this.options.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      // Anthropic always fills input_tokens here and clients read the input from here alone (LangChain):
      // a provider of another format tells it only at the end, so the gateway's own count stands in.
      usage: usageToMessages(usage?.inputTokens !== undefined ? usage : createUsage({ ...usage, inputTokens: this.options.inputTokens })),
    };
    out.push({ event: 'message_start', data: JSON.stringify({ type: 'message_start', message }) });
  }

  private openBlock(kind: Exclude<OpenBlock, 'none'>, contentBlock: string, deltaOpen: string, out: SseEvent[]): void {
    this.closeBlock(out);
    this.blockIndex++;
    this.open = kind;
    this.deltaHead = `{"type":"content_block_delta","index":${this.blockIndex}${deltaOpen}`;
    out.push({ event: 'content_block_start', data: `{"type":"content_block_start","index":${this.blockIndex},"content_block":${contentBlock}}` });
  }

  private closeBlock(out: SseEvent[]): void {
    if (this.open === 'none') return;
    this.open = 'none';
    this.openTool = -1;
    out.push({ event: 'content_block_stop', data: `{"type":"content_block_stop","index":${this.blockIndex}}` });
  }

  private finish(event: StreamFinish, out: SseEvent[]): void {
    this.ended = true;
    this.closeBlock(out);
    const usage = event.usage ?? this.startUsage ?? createUsage();
    const delta = { stop_reason: stopReasonToMessages(event.stopReason), stop_sequence: event.stopSequence ?? null, stop_details: null };
    out.push({ event: 'message_delta', data: JSON.stringify({ type: 'message_delta', delta, usage: usageToMessages(usage) }) });
    out.push(MESSAGE_STOP);
  }
}
