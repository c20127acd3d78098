import type { StopReason } from '../canonical/canonical-response.js';

export type MessagesStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded';

/** Canonical → messages `stop_reason` (wire-formats.md 2.2 StopReason; 7.1). */
export function stopReasonToMessages(reason: StopReason): MessagesStopReason {
  switch (reason) {
    case 'end_turn':
    case 'max_tokens':
    case 'stop_sequence':
    case 'tool_use':
    case 'pause_turn':
      return reason;
    case 'content_filter':
      return 'refusal';
    case 'context_window_exceeded':
      return 'model_context_window_exceeded';
    case 'error':
      return 'end_turn';
  }
}

export function stopReasonFromMessages(reason: unknown): StopReason {
  switch (reason) {
    case 'max_tokens':
    case 'stop_sequence':
    case 'tool_use':
    case 'pause_turn':
      return reason;
    case 'refusal':
      return 'content_filter';
    case 'model_context_window_exceeded':
      return 'context_window_exceeded';
    default:
      return 'end_turn';
  }
}
