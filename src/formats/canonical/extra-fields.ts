import { asJsonValue, type JsonValue } from '../json-value.js';
import type { CanonicalRequest } from './canonical-request.js';
import type { FormatName } from './format-name.js';

/** The top-level fields of a client body that the canonical model does not name. */
export function collectExtras(body: Record<string, unknown>, known: ReadonlySet<string>, format: FormatName): CanonicalRequest['extra'] {
  const fields: Record<string, JsonValue> = {};
  for (const key of Object.keys(body)) {
    if (!known.has(key) && body[key] !== undefined) fields[key] = asJsonValue(body[key]);
  }
  return { format, fields };
}

/**
 * Copies the extras a target format shares with the source format (same name, same meaning) and lists the
 * others as dropped: a provider of another format would reject or misread them.
 */
export function carryExtras(
  extra: CanonicalRequest['extra'],
  shared: Partial<Record<FormatName, readonly string[]>>,
  body: Record<string, JsonValue>,
  dropped: string[],
): void {
  const allowed = shared[extra.format] ?? [];
  for (const [key, value] of Object.entries(extra.fields)) {
    if (allowed.includes(key)) body[key] = value;
    else dropped.push(key);
  }
}
