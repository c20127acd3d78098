import type { CanonicalError } from './canonical-error.js';
import type { ReasoningPart, RedactedReasoningPart, TextPart, ToolCallPart } from './canonical-request.js';
import type { Usage } from '../../billing/usage.js';

/**
 * Why the model stopped. `content_filter` covers Anthropic `refusal`; `error` is a response the provider
 * itself marked failed (responses `status: "failed"`).
 */
export const STOP_REASONS = [
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'content_filter',
  'pause_turn',
  'context_window_exceeded',
  'error',
] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export type OutputPart = TextPart | ToolCallPart | ReasoningPart | RedactedReasoningPart;

export interface CanonicalResponse {
  /** The provider's id (the gateway shows its own; kept for logs). */
  readonly id: string;
  /** The provider's model name. */
  readonly model: string;
  readonly content: readonly OutputPart[];
  readonly stopReason: StopReason;
  /** The stop sequence that matched, when the provider says (only messages does). */
  readonly stopSequence?: string;
  /** Absent when the provider reported none; settlement then counts what was received. */
  readonly usage?: Usage;
  /** Set with `stopReason: 'error'`. */
  readonly error?: CanonicalError;
}
