import type { PiiSpan } from '../pii-kinds.js';
import { spansOfMatch, type ParsedSegment } from './english-entities.js';

/**
 * Street addresses: the words compromise tags as an address, a house number and a street with its type
 * (`42 Baker Street`, `1600 Pennsylvania Avenue`, `221B Baker St`). Only a run that starts with a number is
 * taken: a street named alone (`Baker Street`) does not locate anyone. The city and postcode that may follow
 * are left: alone they are not personal.
 */
export function streetAddresses(segment: ParsedSegment): PiiSpan[] {
  return spansOfMatch(segment, segment.doc.match('#NumericValue #Address+'), 'ADDRESS', 4);
}
