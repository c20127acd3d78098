import type { JsonValue } from '../../src/formats/json-value.js';

/** Past what any recursive walk survives on Node's default stack (and what JSON.stringify can write). */
export const DEEP = 10_000;

/**
 * `leaf` inside `depth` containers, alternating `{"a": …}` and `[…]` from the outside in, built without
 * recursion. The result has nesting depth `depth` when `leaf` is a scalar.
 */
export function deeplyNested(depth: number, leaf: JsonValue = 'leaf'): JsonValue {
  let value = leaf;
  for (let level = depth - 1; level >= 0; level--) value = level % 2 === 0 ? { a: value } : [value];
  return value;
}

/** The same value as JSON text, also built without recursion (JSON.stringify cannot write it). */
export function deeplyNestedText(depth: number, leafText = '"leaf"'): string {
  let open = '';
  let close = '';
  for (let level = 0; level < depth; level++) {
    open += level % 2 === 0 ? '{"a":' : '[';
    close = (level % 2 === 0 ? '}' : ']') + close;
  }
  return open + leafText + close;
}
