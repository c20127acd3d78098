import type { StopReason } from '../canonical/canonical-response.js';

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error';

/**
 * Canonical → chat `finish_reason` (wire-formats.md 7.1, LiteLLM `_FINISH_REASON_MAP`). `error` is
 * OpenRouter's normalized value for a provider failure; chat has no way to say which stop sequence matched.
 */
export function stopReasonToChat(reason: StopReason): ChatFinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop';
    case 'max_tokens':
    case 'context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    case 'error':
      return 'error';
  }
}

/** Chat → canonical (LiteLLM `_translate_openai_finish_reason_to_anthropic`, plus content_filter kept). */
export function stopReasonFromChat(reason: unknown): StopReason {
  switch (reason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'content_filter';
    case 'error':
      return 'error';
    default:
      return 'end_turn';
  }
}
