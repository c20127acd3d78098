/** JSON as it comes out of `JSON.parse`: the only shape client and provider bodies can have. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Narrows a value that is known to come from `JSON.parse` (or a zod schema applied to such a value).
 * Nothing is checked: the type system cannot see that a parsed body holds only JSON, so this says it once.
 */
export function asJsonValue(value: unknown): JsonValue {
  return value as JsonValue;
}

/** `JSON.parse` that returns `undefined` instead of throwing (provider payloads can be truncated). */
export function tryParseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}
