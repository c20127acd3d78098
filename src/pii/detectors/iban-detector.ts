import { countrySpecs, isValidIBAN } from 'ibantools';
import type { Detector, PiiSpan } from '../pii-kinds.js';

/**
 * IBANs (ISO 13616): a country code, two check digits and the country's BBAN, in the electronic form or
 * grouped by spaces, confirmed by ibantools (the country's length and BBAN format, and the mod-97 check).
 * The candidate is cut to the country's length before it is checked, so a word in capitals right after
 * a grouped IBAN does not hide it.
 */
const CANDIDATE = /(?<![\w-])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){8,32}/g;

export const ibanDetector: Detector = {
  kind: 'IBAN',
  find(text) {
    const spans: PiiSpan[] = [];
    CANDIDATE.lastIndex = 0;
    for (let match = CANDIDATE.exec(text); match; match = CANDIDATE.exec(text)) {
      const end = ibanEnd(match[0]);
      if (end === undefined) continue;
      const candidate = match[0].slice(0, end);
      const after = match.index + end;
      if (/[\w-]/.test(text.charAt(after))) continue;
      if (isValidIBAN(candidate.replace(/ /g, ''))) spans.push({ kind: 'IBAN', start: match.index, end: after });
      CANDIDATE.lastIndex = after;
    }
    return spans;
  },
};

/** Where the IBAN of the candidate's country ends (in characters of the candidate), if it is long enough. */
function ibanEnd(candidate: string): number | undefined {
  const length = countrySpecs[candidate.slice(0, 2)]?.chars;
  if (!length) return undefined;
  let kept = 0;
  for (let index = 0; index < candidate.length; index++) {
    if (candidate[index] !== ' ') kept++;
    if (kept === length) return index + 1;
  }
  return undefined;
}
