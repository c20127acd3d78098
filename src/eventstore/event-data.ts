import { z } from 'zod';

/**
 * Event data is plain JSON, because that is what both stores keep (Postgres jsonb, EventStoreDB JSON
 * events) and what a finance replay reads years later. Anything that would not come back from the store
 * as it went in is refused on append: bigint (JSON has none), undefined, NaN, class instances such as Date
 * (they would come back as strings), and integers beyond 2^53 (JSON readers round them).
 * Amounts of money therefore travel as strings of integer nanodollars (`nanodollarsText`).
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** The children of an array (no `keys`) or plain object still to check, with the path that names them. */
interface Frame {
  readonly path: string;
  readonly keys?: readonly string[];
  readonly values: readonly unknown[];
  next: number;
}

/**
 * The first place where `value` is not plain JSON (a path such as `$.amount`), or undefined when it is.
 * Depth-first in key order; the walk keeps its own stack, so data of any depth is checked without
 * exhausting the call stack.
 */
export function findNonJson(value: unknown, path = '$'): string | undefined {
  const first = checkValue(value, path);
  if (typeof first !== 'object') return first;
  const stack: Frame[] = [first];
  for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
    const index = top.next++;
    if (index >= top.values.length) {
      stack.pop();
      continue;
    }
    const found = checkValue(top.values[index], top.keys ? `${top.path}.${top.keys[index]!}` : `${top.path}[${index}]`);
    if (typeof found === 'string') return found;
    if (found) stack.push(found);
  }
  return undefined;
}

/** What is wrong with `value` itself, or the frame of its children when it is an array or plain object. */
function checkValue(value: unknown, path: string): string | Frame | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      if (!Number.isFinite(value)) return `${path} is not a finite number`;
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) return `${path} is an integer beyond 2^53 (send it as a string)`;
      return undefined;
    case 'object': {
      if (value === null) return undefined;
      if (Array.isArray(value)) return { path, values: value, next: 0 };
      const prototype: unknown = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return `${path} is not a plain object`;
      return { path, keys: Object.keys(value), values: Object.values(value), next: 0 };
    }
    case 'bigint':
      return `${path} is a bigint (send amounts as strings of integer nanodollars)`;
    case 'undefined':
    case 'function':
    case 'symbol':
      return `${path} is ${typeof value}, which JSON cannot hold`;
  }
}

/** A JSON object, checked deeply (see `findNonJson`). */
export const jsonObjectSchema = z.custom<JsonObject>().superRefine((value, context) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    context.addIssue({ code: 'custom', message: 'must be a JSON object' });
    return;
  }
  const problem = findNonJson(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

/** An amount of money in event data: a string of integer nanodollars (1 USD = 1e9), e.g. "150000000". */
export const nanodollarsText = z.string().regex(/^-?(0|[1-9][0-9]*)$/, 'must be a string of integer nanodollars');

export function nanodollarsToText(amount: bigint): string {
  return amount.toString();
}

export function textToNanodollars(text: string): bigint {
  return BigInt(nanodollarsText.parse(text));
}
