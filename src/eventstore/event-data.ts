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

/** The first place where `value` is not plain JSON (a path such as `$.amount`), or undefined when it is. */
export function findNonJson(value: unknown, path = '$'): string | undefined {
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
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) {
          const problem = findNonJson(value[index], `${path}[${index}]`);
          if (problem) return problem;
        }
        return undefined;
      }
      const prototype: unknown = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return `${path} is not a plain object`;
      for (const [key, child] of Object.entries(value)) {
        const problem = findNonJson(child, `${path}.${key}`);
        if (problem) return problem;
      }
      return undefined;
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
