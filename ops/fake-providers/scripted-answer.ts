/**
 * What a test scripts for the next request(s) of a fake provider. Every field is optional: an empty
 * script, or none (the demo's and the benchmarks' case), gives the default answer. Numbers in `usage` are
 * written into the provider's own fields as they are (OpenAI `prompt_tokens` counts cached tokens,
 * Anthropic `input_tokens` does not: script accordingly).
 */
export interface ScriptedAnswer {
  /** Only a request to this path takes this answer (e.g. `/v1/embeddings`); without it, the next model request does. */
  readonly path?: string;
  /** The answer text (also the transcript on /audio/transcriptions). Default `DEFAULT_TEXT`; `''` for none. */
  readonly text?: string;
  /** Into how many stream deltas the text is split (default: one per word). */
  readonly deltas?: number;
  /** Reasoning / thinking text, streamed before the text. */
  readonly reasoning?: string;
  /** Tool calls, after the text; several make a parallel-call answer. */
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Base64 PNGs: chat `message.images` (also when the request asks `modalities: ["image"]`), images endpoint `b64_json`. */
  readonly images?: readonly string[];
  /** Embeddings: answer in this encoding whatever `encoding_format` asked (servers that ignore it). */
  readonly embeddingEncoding?: 'float' | 'base64';
  readonly finish?: ScriptedFinish;
  /** With `finish: 'stop_sequence'`: the sequence that matched. */
  readonly stopSequence?: string;
  /** `null`: the answer carries no usage at all (a provider that ignores `stream_options.include_usage`). */
  readonly usage?: ScriptedUsage | null;
  /** Transcriptions: report `{type: "duration", seconds}` instead of tokens. */
  readonly audioSeconds?: number;
  /** Transcriptions: the `segments` of a verbose_json answer (default none). */
  readonly transcriptSegments?: ReadonlyArray<{ readonly start: number; readonly end: number; readonly text: string }>;
  /** Answer with this error instead. */
  readonly error?: ScriptedError;
  /** Wait this long before the status line (timeouts, slow first byte). */
  readonly firstByteDelayMs?: number;
  /**
   * Wait for this promise before the status line (after `firstByteDelayMs`): holds a JSON answer or a
   * whole stream until the test lets it go, e.g. to keep many requests in flight together. A client that
   * hangs up meanwhile gets nothing.
   */
  readonly holdUntil?: Promise<unknown>;
  /** Wait this long before each stream event. */
  readonly eventDelayMs?: number;
  /** Streams: destroy the socket after this many events (a provider that dies mid-answer). */
  readonly failAfterEvents?: number;
  /** Streams: after this many events, send the format's error event and end the stream cleanly. */
  readonly errorEventAfter?: number;
  /** Streams: send every event but the last, then wait for this promise (proves the client reads incrementally). */
  readonly holdLastEventUntil?: Promise<unknown>;
  /** Streams: send `count` events, then wait for `until` before the rest (a client leaves at a known point of the answer). */
  readonly pauseAfterEvents?: { readonly count: number; readonly until: Promise<unknown> };
  /** The model named in the answer (default: the request's). */
  readonly model?: string;
  /** POST /v1/videos: how the job progresses. */
  readonly video?: VideoScript;
  /** Streams: end the stream cleanly after this many events (no finish, no usage, no terminator). */
  readonly truncateAfterEvents?: number;
  /** A fault of the connection or the body rather than of the answer (provider-faults.ts). */
  readonly transport?: 'reset_before_headers' | 'reset_mid_body' | 'trickle' | 'malformed' | 'endless';
}

/** Neutral finish reasons, written as each format's own (`length` / `max_tokens` / `incomplete` …). */
export type ScriptedFinish = 'end' | 'max_tokens' | 'stop_sequence' | 'tool_calls';

export interface ScriptedToolCall {
  readonly id?: string;
  readonly name: string;
  /** JSON text or an object; streamed in a few `arguments` / `partial_json` pieces. */
  readonly arguments: string | Readonly<Record<string, unknown>>;
}

/**
 * Usage in the provider's own meaning (see `ScriptedAnswer`): each count goes into its format's field, and
 * a detail left out is written as each provider does (0, or no field). Where each one goes:
 * - chat: `prompt_tokens_details.cached_tokens` / `.cache_write_tokens` (OpenRouter's name) /
 *   `.cache_creation_token_details` (LiteLLM's split, only with `cacheWrite1hInputTokens`) / `.audio_tokens`,
 *   `completion_tokens_details.reasoning_tokens` / `.audio_tokens`;
 * - messages: `cache_read_input_tokens`, `cache_creation_input_tokens`, `cache_creation.ephemeral_5m/1h_input_tokens`,
 *   `output_tokens_details.thinking_tokens` (no audio: Anthropic has none);
 * - responses: `input_tokens_details.cached_tokens` / `.cache_write_tokens` / `.audio_tokens`,
 *   `output_tokens_details.reasoning_tokens` / `.audio_tokens`.
 */
export interface ScriptedUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
  /** The part of `cacheWriteInputTokens` written for an hour; the rest is written for five minutes. */
  readonly cacheWrite1hInputTokens?: number;
  readonly reasoningTokens?: number;
  /**
   * Chat: reasoning reported beside `completion_tokens` instead of inside it, as some OpenAI-style servers
   * do: `completion_tokens` is `outputTokens − reasoningTokens`, `total_tokens` the input plus the whole output.
   */
  readonly reasoningBesideOutput?: boolean;
  readonly audioInputTokens?: number;
  readonly audioOutputTokens?: number;
  /**
   * Messages streams: what `message_delta` says. `cumulative` (default): the input, cache and output counts,
   * as recent API versions do; `output`: only `output_tokens` (and the thinking tokens), as the streaming
   * docs' example does, so that the cache counts come in `message_start` alone.
   */
  readonly messageDelta?: 'cumulative' | 'output';
  /** Messages streams: what `message_start` says instead of this usage (a later `message_delta` then corrects it). */
  readonly messageStart?: ScriptedUsage;
}

export interface ScriptedError {
  readonly status: number;
  /** An object is sent as JSON, a string as it is; default: the provider's own error shape for the status. */
  readonly body?: unknown;
  /** Sent as `Retry-After`. */
  readonly retryAfter?: number | string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Default timings: in_progress after 10 ms, completed after 50 ms (evaluated when the job is read). */
export interface VideoScript {
  readonly inProgressAfterMs?: number;
  readonly completeAfterMs?: number;
  /** Fail instead of completing, after this long. */
  readonly failAfterMs?: number;
  readonly failure?: { readonly code: string; readonly message: string };
  /** Stay queued until the test calls `videos.advance(id, progress)`, `videos.complete(id)` or `videos.fail(id)`. */
  readonly manual?: boolean;
  /** The size of the file `GET /v1/videos/{id}/content` streams (generated, never held; the default is a small MP4). */
  readonly contentBytes?: number;
}

export const DEFAULT_TEXT = 'Hello from the fake provider.';
export const DEFAULT_USAGE: ScriptedUsage = { inputTokens: 12, outputTokens: 7 };
/** A 1×1 transparent PNG. */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** `parts` near-equal pieces, or one piece per word (the space kept in front) when `parts` is not given. */
export function splitText(text: string, parts?: number): string[] {
  if (text.length === 0) return [];
  if (parts === undefined) return text.match(/\s*\S+\s*$|\s*\S+/g) ?? [text];
  const count = Math.max(1, Math.min(parts, text.length));
  const size = Math.ceil(text.length / count);
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

export function toolArguments(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

export function toolInput(call: ScriptedToolCall): Readonly<Record<string, unknown>> {
  if (typeof call.arguments !== 'string') return call.arguments;
  const parsed: unknown = call.arguments === '' ? {} : JSON.parse(call.arguments);
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
}

export function answerText(answer: ScriptedAnswer): string {
  if (answer.text !== undefined) return answer.text;
  return answer.toolCalls?.length ? '' : DEFAULT_TEXT;
}

export function answerUsage(answer: ScriptedAnswer): ScriptedUsage | undefined {
  return answer.usage === null ? undefined : (answer.usage ?? DEFAULT_USAGE);
}

export function answerFinish(answer: ScriptedAnswer): ScriptedFinish {
  return answer.finish ?? (answer.toolCalls?.length ? 'tool_calls' : 'end');
}

let counter = 0;
/** Short unique ids for answers (`chatcmpl-fake12`); no randomness, so failures are easy to read. */
export function fakeId(prefix: string): string {
  counter += 1;
  return `${prefix}${counter.toString(36).padStart(6, '0')}`;
}
