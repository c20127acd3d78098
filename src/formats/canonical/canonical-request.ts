import type { JsonObject, JsonValue } from '../json-value.js';
import type { FormatName } from './format-name.js';

/** Anthropic's explicit prompt-cache marker; kept so that it reaches a messages provider (spec 4.2). */
export interface CacheControl {
  readonly type: 'ephemeral';
  readonly ttl?: '5m' | '1h';
}

export type ImageSource =
  | { readonly kind: 'base64'; readonly mediaType: string; readonly data: string }
  | { readonly kind: 'url'; readonly url: string };

export interface TextPart {
  readonly type: 'text';
  readonly text: string;
  readonly cacheControl?: CacheControl;
}

export interface ImagePart {
  readonly type: 'image';
  readonly source: ImageSource;
  readonly detail?: 'auto' | 'low' | 'high';
  readonly cacheControl?: CacheControl;
}

export interface ToolCallPart {
  readonly type: 'tool_call';
  readonly id: string;
  readonly name: string;
  /** The arguments as JSON text, exactly as the model produced them. */
  readonly arguments: string;
}

export interface ToolResultPart {
  readonly type: 'tool_result';
  readonly callId: string;
  readonly content: string | ReadonlyArray<TextPart | ImagePart>;
  readonly isError: boolean;
  readonly cacheControl?: CacheControl;
}

/** Visible reasoning; `signature` is the provider's opaque proof, echoed back unchanged in later turns. */
export interface ReasoningPart {
  readonly type: 'reasoning';
  readonly text: string;
  readonly signature?: string;
}

/** Reasoning the provider only returns encrypted (Anthropic `redacted_thinking`). */
export interface RedactedReasoningPart {
  readonly type: 'redacted_reasoning';
  readonly data: string;
}

/**
 * A part of the client's format with no canonical counterpart (audio, files, server tools…). Kept so the
 * parse never loses information; renderers of other formats drop it and report it.
 */
export interface OpaquePart {
  readonly type: 'opaque';
  readonly format: FormatName;
  readonly kind: string;
  readonly value: JsonValue;
}

export type ContentPart = TextPart | ImagePart | ToolCallPart | ToolResultPart | ReasoningPart | RedactedReasoningPart | OpaquePart;

export type Role = 'user' | 'assistant' | 'tool';

/** `tool` messages hold only tool results; `user` and `assistant` never hold them. */
export interface CanonicalMessage {
  readonly role: Role;
  readonly content: readonly ContentPart[];
}

export interface SystemInstruction {
  readonly text: string;
  /** Chat and responses distinguish `developer` from `system`; kept for a renderer that can show it. */
  readonly role: 'system' | 'developer';
  readonly cacheControl?: CacheControl;
}

export interface ToolDefinition {
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the arguments. */
  readonly parameters: JsonObject;
  readonly strict?: boolean;
  readonly cacheControl?: CacheControl;
}

export type ToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'none' }
  | { readonly type: 'required' }
  | { readonly type: 'tool'; readonly name: string };

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface ReasoningConfig {
  readonly effort?: ReasoningEffort;
  /** Anthropic `thinking.budget_tokens`; counts toward the output cap. */
  readonly budgetTokens?: number;
}

export type ResponseFormat =
  | { readonly type: 'text' }
  | { readonly type: 'json_object' }
  | { readonly type: 'json_schema'; readonly name: string; readonly schema: JsonObject; readonly description?: string; readonly strict?: boolean };

export interface CanonicalRequest {
  /** The model named by the client (the pipeline resolves it; renderers take the upstream name). */
  readonly model: string;
  /** Every system/developer instruction in order of appearance. */
  readonly system: readonly SystemInstruction[];
  readonly messages: readonly CanonicalMessage[];
  readonly tools: readonly ToolDefinition[];
  readonly toolChoice?: ToolChoice;
  readonly parallelToolCalls?: boolean;
  /** Absent when the client sent no cap (the reserve then uses the model ceiling, spec 8). */
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly stopSequences: readonly string[];
  readonly reasoning?: ReasoningConfig;
  readonly responseFormat?: ResponseFormat;
  /** End-user id (chat/responses `user`, messages `metadata.user_id`). */
  readonly user?: string;
  readonly stream: boolean;
  /** The client asked to see usage in the stream (chat `stream_options.include_usage`; always true elsewhere). */
  readonly streamUsage: boolean;
  /** Top-level fields of the client body the canonical model does not name, for renderers that share them. */
  readonly extra: { readonly format: FormatName; readonly fields: Readonly<Record<string, JsonValue>> };
}
