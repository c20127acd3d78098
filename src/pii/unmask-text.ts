import { PLACEHOLDER, type Placeholders } from './placeholders.js';

/**
 * The placeholders of a text replaced by the values they stand for. A placeholder-shaped string that this
 * request never gave out (the model made it up, or the client wrote it) stays as it is.
 *
 * `inJson`: the text is JSON (tool-call arguments, streamed or whole), and the placeholder sits inside one
 * of its strings, so the value is written escaped as a JSON string's content (a name with a quote in it
 * must not end the string).
 */
export function unmaskText(text: string, placeholders: Placeholders, inJson = false): string {
  if (placeholders.size === 0 || !text.includes('[')) return text;
  return text.replace(PLACEHOLDER, (found) => {
    const value = placeholders.valueOf(found);
    if (value === undefined) return found;
    return inJson ? JSON.stringify(value).slice(1, -1) : value;
  });
}

/** Fields whose string value is itself JSON text: tool-call arguments in the three formats. */
const JSON_TEXT_FIELDS: ReadonlySet<string> = new Set(['arguments', 'partial_json']);

/**
 * Every string of a JSON answer unmasked, keys left alone; arguments (`arguments`, `partial_json`) as
 * JSON text. Returns the same value when nothing changed.
 */
export function unmaskJson(value: unknown, placeholders: Placeholders, inJson = false): unknown {
  if (typeof value === 'string') return unmaskText(value, placeholders, inJson);
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const unmasked = unmaskJson(item, placeholders);
      changed ||= unmasked !== item;
      return unmasked;
    });
    return changed ? items : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  let result: Record<string, unknown> | undefined;
  for (const [key, field] of Object.entries(value)) {
    const unmasked = unmaskJson(field, placeholders, typeof field === 'string' && JSON_TEXT_FIELDS.has(key));
    if (unmasked !== field) (result ??= { ...value })[key] = unmasked;
  }
  return result ?? value;
}
