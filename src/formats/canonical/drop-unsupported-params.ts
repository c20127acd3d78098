import type { JsonObject, JsonValue } from '../json-value.js';
import type { CanonicalRequest } from './canonical-request.js';

/**
 * Spec 1.6: "A parameter the model does not support is ignored without an error". The catalog lists them per
 * model (`drop_params`) by their wire names. A few names mean the same thing in several formats and are
 * dropped together; everything else is dropped by exact name. Output caps are never aliased: `max_tokens`
 * and `max_completion_tokens` differ on purpose (o-series models reject only the first).
 */
const SAME_MEANING: ReadonlyArray<readonly string[]> = [
  ['stop', 'stop_sequences'],
  ['reasoning_effort', 'reasoning', 'thinking'],
];

function expand(names: readonly string[]): Set<string> {
  const out = new Set(names);
  for (const group of SAME_MEANING) {
    if (group.some((name) => out.has(name))) for (const name of group) out.add(name);
  }
  return out;
}

export interface DroppedParams<T> {
  readonly value: T;
  /** The names actually removed (present in the request). */
  readonly dropped: readonly string[];
}

/** On a client or provider body (pass-through): a shallow copy without the listed top-level fields. */
export function dropUnsupportedNativeParams(body: JsonObject, names: readonly string[]): DroppedParams<JsonObject> {
  if (names.length === 0) return { value: body, dropped: [] };
  const drop = expand(names);
  const dropped: string[] = [];
  const value: JsonObject = {};
  for (const key of Object.keys(body)) {
    if (drop.has(key)) dropped.push(key);
    else value[key] = body[key]!;
  }
  return { value: dropped.length === 0 ? body : value, dropped };
}

/** On a canonical request (translation), before it is rendered for the provider. */
export function dropUnsupportedParams(request: CanonicalRequest, names: readonly string[]): DroppedParams<CanonicalRequest> {
  if (names.length === 0) return { value: request, dropped: [] };
  const drop = expand(names);
  const dropped: string[] = [];
  const next: { -readonly [K in keyof CanonicalRequest]: CanonicalRequest[K] } = { ...request };
  const clear = <K extends 'temperature' | 'topP' | 'toolChoice' | 'parallelToolCalls' | 'reasoning' | 'responseFormat' | 'user'>(
    name: string,
    key: K,
  ) => {
    if (drop.has(name) && next[key] !== undefined) {
      delete next[key];
      dropped.push(name);
    }
  };
  clear('temperature', 'temperature');
  clear('top_p', 'topP');
  clear('tool_choice', 'toolChoice');
  clear('parallel_tool_calls', 'parallelToolCalls');
  clear('reasoning_effort', 'reasoning');
  clear('response_format', 'responseFormat');
  clear('user', 'user');
  if (drop.has('stop') && request.stopSequences.length > 0) {
    next.stopSequences = [];
    dropped.push('stop');
  }
  if (drop.has('tools') && request.tools.length > 0) {
    next.tools = [];
    delete next.toolChoice;
    dropped.push('tools');
  }
  const fields: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(request.extra.fields)) {
    if (drop.has(key)) dropped.push(key);
    else fields[key] = value;
  }
  next.extra = { format: request.extra.format, fields };
  return { value: next, dropped };
}
