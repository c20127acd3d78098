/**
 * Provider answers written by hand in each provider's own wire shape, non-streaming and streaming, after
 * the examples of wire-formats.md 1.2/1.4, 2.2/2.3, 3.2/3.3 — independent of the gateway's encoders, so a
 * decoder is checked against the providers' shapes rather than against the gateway's own writing. The
 * format tests run them; the translation benchmark feeds one long answer
 * through every stream translator (ops/bench/translation-bench.ts).
 */
import type { SseEvent } from '../../src/formats/sse-event.js';
import type { JsonObject, JsonValue } from '../../src/formats/json-value.js';

/** One model answer, described once and written in each provider's wire shape. */
export interface AnswerSpec {
  readonly name: string;
  readonly reasoning?: { readonly chunks: readonly string[]; readonly signature: string };
  readonly text?: readonly string[];
  readonly tools?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly args: readonly string[] }>;
  readonly stop: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';
  readonly stopSequence?: string;
  /** Whole input (cached + cache write included), as the canonical usage counts it. */
  readonly usage: { readonly input: number; readonly cached: number; readonly cacheWrite: number; readonly output: number; readonly reasoning: number };
  /** The provider fails after streaming its content (mid-stream error). */
  readonly failMidStream?: boolean;
}

/** What the three writers share: the answers' creation time (a fixed one) and how an event's data is written. */
export const CREATED = 1_741_290_958;
export const data = (value: JsonValue): string => JSON.stringify(value);
export const named = (value: JsonObject): SseEvent => ({ event: String(value.type), data: data(value) });
