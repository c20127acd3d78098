/**
 * What the format walkers share: a request body is plain JSON, rebuilt along the paths whose text changed
 * and shared elsewhere (a 32 MiB body is not copied to mask one message).
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonRecord = { [key: string]: Json };
export type Mask = (text: string) => Promise<string>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `record` with `field` masked by `maskField` when it is present; the same object when nothing changed. */
export async function withField(record: JsonRecord, field: string, maskField: (value: Json) => Promise<Json>): Promise<JsonRecord> {
  if (!(field in record)) return record;
  const value = record[field]!;
  const masked = await maskField(value);
  return masked === value ? record : { ...record, [field]: masked };
}

/** Each element through `maskItem`, in order (placeholders are numbered in the order values appear). */
export async function eachItem(value: Json, maskItem: (item: Json) => Promise<Json>): Promise<Json> {
  if (!Array.isArray(value)) return value;
  let changed = false;
  const items: Json[] = [];
  for (const item of value) {
    const masked = await maskItem(item);
    changed ||= masked !== item;
    items.push(masked);
  }
  return changed ? items : value;
}

/** A string masked; anything else as it is. */
export function maskString(mask: Mask): (value: Json) => Promise<Json> {
  return async (value) => (typeof value === 'string' ? mask(value) : value);
}

/** Every string inside a JSON value (not its keys): a tool's input, whatever its schema. */
export async function maskStringsIn(value: Json, mask: Mask): Promise<Json> {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return eachItem(value, (item) => maskStringsIn(item, mask));
  if (!isRecord(value)) return value;
  let result = value;
  for (const key of Object.keys(value)) result = await withField(result, key, (field) => maskStringsIn(field, mask));
  return result;
}

/**
 * Tool-call arguments as the formats carry them, JSON text in a string: the strings inside are masked and
 * the JSON written again, so a value is found whole and not across an escape (`\n`); text that is not JSON
 * is masked as text.
 */
export async function maskJsonText(text: Json, mask: Mask): Promise<Json> {
  if (typeof text !== 'string') return text;
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    return mask(text);
  }
  const masked = await maskStringsIn(parsed, mask);
  return masked === parsed ? text : JSON.stringify(masked);
}

/** Content as a string, or parts of which those of `textTypes` carry their text in `text`. */
export async function maskContent(content: Json, mask: Mask, textTypes: ReadonlySet<string>): Promise<Json> {
  if (typeof content === 'string') return mask(content);
  return eachItem(content, async (part) => (isRecord(part) && typeof part.type === 'string' && textTypes.has(part.type) ? withField(part, 'text', maskString(mask)) : part));
}
