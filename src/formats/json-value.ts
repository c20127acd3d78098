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

/**
 * Whether arrays and objects nest more than `limit` levels deep in `value` (`{}` and `[]` are one level,
 * a scalar none). Meant for a client body right after `JSON.parse`, which accepts any depth: walks of the
 * parsed value must not exhaust the call stack, and V8's `JSON.stringify` (which forwards the body) throws
 * `RangeError` from about 4,000 levels on Node's default stack. Iterative, with at most one frame per level
 * of the current path (never one per value), and it stops at the first container beyond the limit.
 */
export function jsonNestingDepthExceeds(value: unknown, limit: number): boolean {
  const path: Array<{ readonly items: readonly unknown[]; next: number }> = [];
  let current = value;
  for (;;) {
    if (typeof current === 'object' && current !== null) {
      if (path.length >= limit) return true;
      const items = itemsWithContainers(current);
      if (items !== undefined) path.push({ items, next: 0 });
    }
    let top = path.at(-1);
    while (top !== undefined && top.next >= top.items.length) {
      path.pop();
      top = path.at(-1);
    }
    if (top === undefined) return false;
    current = top.items[top.next++];
  }
}

/**
 * The values of `container` when one of them is an array or object, else `undefined`: most containers of a
 * body (text parts, scalar lists) hold none, and skipping their frame keeps the check cheap on wide bodies.
 */
function itemsWithContainers(container: object): readonly unknown[] | undefined {
  if (Array.isArray(container)) return container.some((item) => typeof item === 'object' && item !== null) ? container : undefined;
  for (const key in container) {
    const item = (container as Record<string, unknown>)[key];
    if (typeof item === 'object' && item !== null) return Object.values(container);
  }
  return undefined;
}
