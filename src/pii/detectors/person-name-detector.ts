import type { PiiSpan } from '../pii-kinds.js';
import { spansOfMatch, type ParsedSegment } from './english-entities.js';

/**
 * Names of people: compromise's people (a given name, a family name or both, recognised by its lexicon and
 * by the words around them), without the honorific (`Dr.`, `Mrs.`), which says nothing about who it is.
 * A single letter is never taken for a name.
 */
export function personNames(segment: ParsedSegment): PiiSpan[] {
  return spansOfMatch(segment, segment.doc.people().not('#Honorific'), 'NAME', 2);
}
