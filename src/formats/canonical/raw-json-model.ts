/**
 * Replaces the top-level `"model"` string of a raw JSON object body without parsing or re-serialising it:
 * a same-format request goes upstream as the client's bytes with one field changed. Returns `undefined`
 * when the body is not an object with a string `model` (the caller falls back to the parsed body).
 *
 * The scan stops at the model key, which clients send first or near the start; strings are skipped with
 * `indexOf`, so a nested `"model"` key (e.g. a tool schema property) is never mistaken for it.
 */
export function replaceModelInRawJson(raw: string, model: string): string | undefined {
  let pos = skipSpace(raw, 0);
  if (raw.charCodeAt(pos) !== 123 /* { */) return undefined;
  pos = skipSpace(raw, pos + 1);
  while (pos < raw.length && raw.charCodeAt(pos) === 34 /* " */) {
    const keyEnd = stringEnd(raw, pos);
    if (keyEnd < 0) return undefined;
    const key = raw.slice(pos + 1, keyEnd);
    pos = skipSpace(raw, keyEnd + 1);
    if (raw.charCodeAt(pos) !== 58 /* : */) return undefined;
    const valueStart = skipSpace(raw, pos + 1);
    const valueEnd = valueEndAt(raw, valueStart);
    if (valueEnd < 0) return undefined;
    if (key === 'model') {
      if (raw.charCodeAt(valueStart) !== 34) return undefined;
      return raw.slice(0, valueStart) + JSON.stringify(model) + raw.slice(valueEnd);
    }
    pos = skipSpace(raw, valueEnd);
    if (raw.charCodeAt(pos) !== 44 /* , */) return undefined;
    pos = skipSpace(raw, pos + 1);
  }
  return undefined;
}

function skipSpace(raw: string, pos: number): number {
  let at = pos;
  for (;;) {
    const code = raw.charCodeAt(at);
    if (code !== 32 && code !== 10 && code !== 13 && code !== 9) return at;
    at++;
  }
}

/** Index of the closing quote of the string opening at `start`. */
function stringEnd(raw: string, start: number): number {
  let at = start + 1;
  for (;;) {
    const quote = raw.indexOf('"', at);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (raw.charCodeAt(quote - 1 - backslashes) === 92) backslashes++;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

/** Index just past the JSON value starting at `start`. */
function valueEndAt(raw: string, start: number): number {
  const first = raw.charCodeAt(start);
  if (first === 34) {
    const end = stringEnd(raw, start);
    return end < 0 ? -1 : end + 1;
  }
  if (first !== 123 && first !== 91) {
    let at = start;
    while (at < raw.length) {
      const code = raw.charCodeAt(at);
      if (code === 44 || code === 125 || code === 93 || code === 32 || code === 10 || code === 13 || code === 9) break;
      at++;
    }
    return at;
  }
  let depth = 0;
  let at = start;
  while (at < raw.length) {
    const code = raw.charCodeAt(at);
    if (code === 34) {
      at = stringEnd(raw, at);
      if (at < 0) return -1;
    } else if (code === 123 || code === 91) depth++;
    else if (code === 125 || code === 93) {
      depth--;
      if (depth === 0) return at + 1;
    }
    at++;
  }
  return -1;
}
