/**
 * A JSON string literal, quotes included (`"Hello \"you\""`). Stream deltas travel through the canonical
 * stream in this form so that a text fragment read from a provider event is written into the client event
 * without being decoded and re-encoded: the hot path of a stream is string slicing and concatenation.
 */
export type JsonStringLiteral = string & { readonly __jsonStringLiteral: true };

/** One well-formed JSON string: no raw control characters, no lone quote, only valid escapes. */
export const LITERAL_PATTERN = String.raw`"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"`;

/**
 * A sticky matcher for "a literal at this position, followed by exactly `tail` up to the end": decoders use it
 * after a prefix comparison, so one regex run both validates the literal and proves nothing else follows.
 * (`startsWith` and `lastIndexOf` chains measured 3–5× slower on V8 for these payloads.)
 */
export function literalBeforeTail(tailPattern: string): RegExp {
  return new RegExp(`${LITERAL_PATTERN}(?=${tailPattern}$)`, 'y');
}

/** The literal at `start` when `matcher` (from `literalBeforeTail`) accepts the rest of `data`. */
export function matchLiteralAt(matcher: RegExp, data: string, start: number): JsonStringLiteral | undefined {
  matcher.lastIndex = start;
  return matcher.test(data) ? (data.slice(start, matcher.lastIndex) as JsonStringLiteral) : undefined;
}

export function toJsonLiteral(text: string): JsonStringLiteral {
  return JSON.stringify(text) as JsonStringLiteral;
}

export function fromJsonLiteral(literal: JsonStringLiteral): string {
  return JSON.parse(literal) as string;
}

export const EMPTY_LITERAL = '""' as JsonStringLiteral;

/**
 * Joins literals into the literal of the joined text. The bodies of JSON strings concatenate: escapes never
 * span two literals because each one is complete.
 */
export function joinJsonLiterals(literals: readonly JsonStringLiteral[]): JsonStringLiteral {
  if (literals.length === 1) return literals[0]!;
  let body = '"';
  for (const literal of literals) body += literal.slice(1, -1);
  return (body + '"') as JsonStringLiteral;
}
