import type { StopReason } from '../canonical/canonical-response.js';

export type ResponsesStatus = 'completed' | 'incomplete' | 'failed';
export type IncompleteReason = 'max_output_tokens' | 'content_filter';

export interface ResponsesOutcome {
  readonly status: ResponsesStatus;
  readonly incompleteReason?: IncompleteReason;
}

/**
 * Responses has no stop reason, only a status (wire-formats.md 7.1, LiteLLM
 * `_map_chat_completion_finish_reason_to_responses_status`): stop and tool calls → completed; length and
 * content_filter → incomplete with the reason; errors → failed. A matched stop sequence is not reported.
 */
export function outcomeOfStopReason(reason: StopReason): ResponsesOutcome {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'tool_use':
    case 'pause_turn':
      return { status: 'completed' };
    case 'max_tokens':
    case 'context_window_exceeded':
      return { status: 'incomplete', incompleteReason: 'max_output_tokens' };
    case 'content_filter':
      return { status: 'incomplete', incompleteReason: 'content_filter' };
    case 'error':
      return { status: 'failed' };
  }
}

/** A completed response that called tools stopped to let them run (`tool_use`). */
export function stopReasonOfOutcome(status: unknown, incompleteReason: unknown, calledTools: boolean): StopReason {
  switch (status) {
    case 'incomplete':
      return incompleteReason === 'content_filter' ? 'content_filter' : 'max_tokens';
    case 'failed':
    case 'cancelled':
      return 'error';
    default:
      return calledTools ? 'tool_use' : 'end_turn';
  }
}
