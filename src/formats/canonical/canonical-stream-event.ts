import type { JsonStringLiteral } from '../json-string-literal.js';
import type { CanonicalError } from './canonical-error.js';
import type { StopReason } from './canonical-response.js';
import type { Usage } from '../../billing/usage.js';

/**
 * The canonical stream between a provider decoder and a client encoder. Block boundaries are implicit, the
 * way chat streams have them: a text delta after anything else opens a text block; a reasoning block ends
 * with its signature (or with any non-reasoning event); tool calls are bracketed by start/end and never
 * interleave. Text travels as JSON literals (see json-string-literal.ts).
 */
export type CanonicalStreamEvent =
  | StreamStart
  | TextDelta
  | ReasoningDelta
  | ReasoningSignature
  | RedactedReasoning
  | ToolCallStart
  | ToolCallDelta
  | ToolCallEnd
  | StreamFinish
  | StreamError;

export interface StreamStart {
  readonly type: 'start';
  /** The provider's id and model (the encoders show the gateway's). */
  readonly id: string;
  readonly model: string;
  /** What the provider reports up front (messages `message_start` carries the input count). */
  readonly usage?: Usage;
}

export interface TextDelta {
  readonly type: 'text_delta';
  readonly text: JsonStringLiteral;
}

export interface ReasoningDelta {
  readonly type: 'reasoning_delta';
  readonly text: JsonStringLiteral;
}

/** Closes the current reasoning block; a later reasoning delta opens a new one. */
export interface ReasoningSignature {
  readonly type: 'reasoning_signature';
  readonly signature: string;
}

export interface RedactedReasoning {
  readonly type: 'redacted_reasoning';
  readonly data: string;
}

export interface ToolCallStart {
  readonly type: 'tool_call_start';
  /** 0-based position among the tool calls of this answer. */
  readonly index: number;
  readonly id: string;
  readonly name: string;
}

export interface ToolCallDelta {
  readonly type: 'tool_call_delta';
  readonly index: number;
  /** A fragment of the arguments' JSON text, as a JSON string literal. */
  readonly arguments: JsonStringLiteral;
}

export interface ToolCallEnd {
  readonly type: 'tool_call_end';
  readonly index: number;
}

/** The last event of a successful stream. */
export interface StreamFinish {
  readonly type: 'finish';
  readonly stopReason: StopReason;
  readonly stopSequence?: string;
  readonly usage?: Usage;
}

/** The last event of a failed stream (provider error event, truncated stream, or key revoked). */
export interface StreamError {
  readonly type: 'error';
  readonly error: CanonicalError;
}
