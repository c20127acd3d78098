import type { SseEvent } from '../sse-event.js';
import type { CanonicalStreamEvent } from '../canonical/canonical-stream-event.js';
import type { EncoderOptions, StreamEncoder } from '../canonical/stream-codec.js';
import { stopReasonToChat } from './chat-stop-reason.js';
import { usageToChat } from './chat-usage.js';
import { renderOpenAiErrorBody } from './openai-error.js';

const DONE: SseEvent = { data: '[DONE]' };

/**
 * Canonical events → chat chunks (wire-formats.md 1.4): a role chunk first, content / reasoning /
 * tool-call deltas, one chunk with `finish_reason`, the usage chunk (empty `choices`) only when the client
 * asked for it, then `data: [DONE]`. A failure is a `data: {"error":…}` chunk, the last of the stream: the
 * openai SDK throws `APIError` on an `error` key ([OAI-NODE] src/core/streaming.ts).
 *
 * Chunks are built by concatenation around the JSON literals of the canonical stream: nothing is
 * re-serialised on the hot path.
 */
export class ChatStreamEncoder implements StreamEncoder {
  private readonly head: string;
  private readonly open: string;
  private readonly envelope: string;
  private started = false;
  private ended = false;
  private reasoningBlock = 0;

  constructor(private readonly options: EncoderOptions) {
    this.envelope = `{"id":${JSON.stringify(options.requestId)},"object":"chat.completion.chunk","created":${options.created},"model":${JSON.stringify(options.model)},"choices":`;
    this.head = `${this.envelope}[{"index":0,"delta":`;
    // "All other chunks will also include a usage field, but with a null value" (stream_options doc).
    this.open = `,"logprobs":null,"finish_reason":null}]${options.includeUsage ? ',"usage":null' : ''}}`;
  }

  push(event: CanonicalStreamEvent, out: SseEvent[]): void {
    if (this.ended) return;
    if (!this.started && event.type !== 'error') {
      this.started = true;
      out.push({ data: `${this.head}{"role":"assistant","content":""}${this.open}` });
    }
    switch (event.type) {
      case 'start':
        return;
      case 'text_delta':
        out.push({ data: `${this.head}{"content":${event.text}}${this.open}` });
        return;
      case 'reasoning_delta':
        // OpenRouter's field; LiteLLM and DeepSeek call it reasoning_content.
        out.push({ data: `${this.head}{"reasoning":${event.text}}${this.open}` });
        return;
      case 'reasoning_signature':
        out.push({ data: `${this.head}{"reasoning_details":[{"type":"reasoning.text","text":"","signature":${JSON.stringify(event.signature)},"index":${this.reasoningBlock++}}]}${this.open}` });
        return;
      case 'redacted_reasoning':
        out.push({ data: `${this.head}{"reasoning_details":[{"type":"reasoning.encrypted","data":${JSON.stringify(event.data)},"index":${this.reasoningBlock++}}]}${this.open}` });
        return;
      case 'tool_call_start':
        out.push({
          data: `${this.head}{"tool_calls":[{"index":${event.index},"id":${JSON.stringify(event.id)},"type":"function","function":{"name":${JSON.stringify(event.name)},"arguments":""}}]}${this.open}`,
        });
        return;
      case 'tool_call_delta':
        out.push({ data: `${this.head}{"tool_calls":[{"index":${event.index},"function":{"arguments":${event.arguments}}}]}${this.open}` });
        return;
      case 'tool_call_end':
        return;
      case 'finish': {
        this.ended = true;
        const usageNull = this.options.includeUsage ? ',"usage":null' : '';
        out.push({ data: `${this.head}{},"logprobs":null,"finish_reason":"${stopReasonToChat(event.stopReason)}"}]${usageNull}}` });
        if (this.options.includeUsage && event.usage) {
          out.push({ data: `${this.envelope}[],"usage":${JSON.stringify(usageToChat(event.usage))}}` });
        }
        out.push(DONE);
        return;
      }
      case 'error':
        this.ended = true;
        out.push({ data: JSON.stringify(renderOpenAiErrorBody(event.error)) });
        return;
      default: {
        const unreachable: never = event;
        throw new Error(`unknown canonical event ${JSON.stringify(unreachable)}`);
      }
    }
  }
}
