import type nlpModule from 'compromise';
import { createRequire } from 'node:module';
import type { PiiKind, PiiSpan } from '../pii-kinds.js';

type Nlp = typeof nlpModule;
let loaded: Nlp | undefined;

/**
 * compromise, loaded at the first parse rather than at start: its lexicon holds about 28 MB once loaded,
 * which a gateway whose clients never ask for masking (most) would keep for nothing. The first masked
 * request pays the load (about 0.1 s).
 */
function nlp(text: string): ReturnType<Nlp> {
  loaded ??= createRequire(import.meta.url)('compromise') as Nlp;
  return loaded(text);
}

/**
 * Names of people and street addresses are found by compromise (https://github.com/spencermountain/compromise),
 * a rule-based model of English: its lexicon of given and family names, honorifics and street types, and its
 * tagger for the words around them. It is deterministic and local, but it is a model of language, not a
 * check: the corpus test (test/unit/pii/pii-corpus.test.ts) measures its recall and precision, and the
 * figures are in docs/client-guide.md.
 *
 * One parse serves both detectors (person-name-detector.ts, street-address-detector.ts); parsing is the
 * expensive part, about 0.15 MB of text a second, so a long text is parsed in segments that end on a line
 * or sentence boundary, and the masker yields to the event loop between them.
 */
export const SEGMENT_CHARS = 4_000;

/** One parsed segment of a text: `doc` is compromise's view of it, offsets are relative to `start`. */
export interface ParsedSegment {
  readonly text: string;
  readonly start: number;
  readonly doc: ReturnType<Nlp>;
}

export type EntityFinder = (segment: ParsedSegment) => PiiSpan[];

/** The text cut into segments of at most about `SEGMENT_CHARS`, each ending after a newline or a sentence's end where one is near. */
export function segmentsOf(text: string): Array<{ readonly text: string; readonly start: number }> {
  const segments: Array<{ text: string; start: number }> = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + SEGMENT_CHARS);
    if (end < text.length) {
      const window = text.slice(start + SEGMENT_CHARS / 2, end);
      const cut = Math.max(window.lastIndexOf('\n'), window.lastIndexOf('. '), window.lastIndexOf(' '));
      if (cut !== -1) end = start + SEGMENT_CHARS / 2 + cut + 1;
    }
    segments.push({ text: text.slice(start, end), start });
    start = end;
  }
  return segments;
}

/**
 * The segment parsed, each term's offset computed once for the whole segment: reading the offsets of a
 * match through `json({offset})` computes them again for every match, which halved the throughput.
 */
export function parseSegment(segment: { readonly text: string; readonly start: number }): ParsedSegment {
  const doc = nlp(segment.text);
  doc.compute('offset');
  return { ...segment, doc };
}

interface OffsetTerm {
  readonly offset?: { readonly start: number; readonly length: number };
}

/** The spans of a compromise match, in the whole text's offsets, trimmed of the punctuation compromise keeps on a term. */
export function spansOfMatch(segment: ParsedSegment, match: { readonly docs: unknown }, kind: PiiKind, minimumLength: number): PiiSpan[] {
  const spans: PiiSpan[] = [];
  for (const terms of match.docs as ReadonlyArray<readonly OffsetTerm[]>) {
    const first = terms[0]?.offset;
    const last = terms[terms.length - 1]?.offset;
    if (!first || !last) continue;
    let start = first.start;
    let end = last.start + last.length;
    while (end > start && !isNameCharacter(segment.text.charCodeAt(end - 1))) end--;
    while (start < end && !isNameCharacter(segment.text.charCodeAt(start))) start++;
    if (end - start >= minimumLength) spans.push({ kind, start: segment.start + start, end: segment.start + end });
  }
  return spans;
}

/** Letters and digits of any script (a name or a house number ends on one; `,` `.` `)` do not belong to it). */
function isNameCharacter(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code > 191;
}
