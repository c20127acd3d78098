/**
 * A JSON string literal, quotes included (`"Hello \"you\""`). Stream deltas travel through the canonical
 * stream in this form so that a text fragment read from a provider event is written into the client event
 * without being decoded and re-encoded: the hot path of a stream is string slicing and concatenation.
 */
export type JsonStringLiteral = string & { readonly __jsonStringLiteral: true };

/** One well-formed JSON string: no raw control characters, no lone quote, only valid escapes. */
export const LITERAL_PATTERN = String.raw`"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"`;

/** A literal followed by a fixed tail: see `literalBeforeTail`. */
export interface LiteralMatcher {
  /** Literal and tail in one sticky regex: the fast path. */
  readonly whole: RegExp;
  /** The tail alone, sticky, checked after a literal too long for `whole` was scanned. */
  readonly tail: RegExp;
}

/**
 * A sticky matcher for "a literal at this position, followed by exactly `tail` up to the end": decoders use it
 * after a prefix comparison, so one regex run both validates the literal and proves nothing else follows.
 * (`startsWith` and `lastIndexOf` chains measured 3–5× slower on V8 for these payloads.)
 */
export function literalBeforeTail(tailPattern: string): LiteralMatcher {
  return { whole: new RegExp(`${LITERAL_PATTERN}(?=${tailPattern}$)`, 'y'), tail: new RegExp(`(?:${tailPattern})$`, 'y') };
}

/**
 * Irregexp keeps one backtrack entry per character or escape of the literal (its body is an alternation) and
 * throws `RangeError` once its backtrack stack is full: on Node 20 from about 10 million characters of plain
 * text. Longer data is scanned with `literalEnd` instead; every delta a provider really sends is far shorter
 * and keeps the faster regex.
 */
const REGEX_SAFE_LENGTH = 1 << 20;
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/** The literal at `start` when `matcher` (from `literalBeforeTail`) accepts the rest of `data`. */
export function matchLiteralAt(matcher: LiteralMatcher, data: string, start: number): JsonStringLiteral | undefined {
  if (data.length - start <= REGEX_SAFE_LENGTH) {
    matcher.whole.lastIndex = start;
    return matcher.whole.test(data) ? (data.slice(start, matcher.whole.lastIndex) as JsonStringLiteral) : undefined;
  }
  const end = literalEnd(data, start);
  if (end < 0) return undefined;
  matcher.tail.lastIndex = end;
  return matcher.tail.test(data) ? (data.slice(start, end) as JsonStringLiteral) : undefined;
}

/**
 * The index just past the literal (`LITERAL_PATTERN`) opening at `start`, or -1. Runs of plain characters
 * are one greedy character-class loop, which irregexp matches without backtrack entries, and each escape is
 * its own match, so no input length fills the backtrack stack.
 */
function literalEnd(data: string, start: number): number {
  if (data.charCodeAt(start) !== 34 /* " */) return -1;
  let at = start + 1;
  for (;;) {
    PLAIN_RUN.lastIndex = at;
    PLAIN_RUN.test(data);
    at = PLAIN_RUN.lastIndex;
    if (data.charCodeAt(at) === 34) return at + 1;
    ESCAPE.lastIndex = at;
    if (!ESCAPE.test(data)) return -1; // a control character, a bad escape or the end of the data
    at = ESCAPE.lastIndex;
  }
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
