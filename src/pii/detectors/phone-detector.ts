import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import type { Detector, PiiSpan } from '../pii-kinds.js';

/**
 * Phone numbers, confirmed by libphonenumber's metadata (the `max` set, which checks the digits of each
 * numbering plan and not only the length). Three shapes are looked for, each with the separators people
 * write: international (`+44 20 7946 0958`, `0044 …`), North American (`(415) 555-2671`, `415-555-2671`)
 * and national with a trunk 0 (`020 7946 0958`, `01 23 45 67 89`). A run of digits without a `+` or a
 * separator is not taken for a phone number: order numbers, timestamps and amounts look just like that.
 */
const INTERNATIONAL = /(?<![\w+])(?:\+|\b00)[1-9](?:[ ()\-.\u00a0]{0,2}\d){6,14}(?![\w-])/g;
const NORTH_AMERICAN = /(?<![\w+\-.])(?:\(\d{3}\) ?|\d{3}[-. ])\d{3}[-. ]\d{4}(?![\w-]|\.\d)/g;
const TRUNK_ZERO = /(?<![\w+\-.])0\d{1,4}(?:[ -]\d{2,8}){1,4}(?![\w-]|\.\d)/g;

/** Countries whose numbers are written nationally with a leading 0, tried in turn for that shape. */
const TRUNK_ZERO_COUNTRIES: readonly CountryCode[] = ['GB', 'DE', 'FR', 'NL', 'BE', 'AT', 'CH', 'IT', 'SE', 'AU', 'IN', 'JP', 'IE', 'NZ'];
const NORTH_AMERICAN_COUNTRIES: readonly CountryCode[] = ['US', 'CA'];

export const phoneDetector: Detector = {
  kind: 'PHONE',
  find(text, claimed) {
    const candidates = [
      ...candidatesOf(text, INTERNATIONAL, (candidate) => valid(candidate.startsWith('00') ? `+${candidate.slice(2)}` : candidate)),
      ...candidatesOf(text, NORTH_AMERICAN, (candidate) => NORTH_AMERICAN_COUNTRIES.some((country) => valid(candidate, country))),
      ...candidatesOf(text, TRUNK_ZERO, (candidate) => {
        const digits = candidate.replace(/\D/g, '').length;
        return digits >= 9 && digits <= 12 && TRUNK_ZERO_COUNTRIES.some((country) => valid(candidate, country));
      }),
    ].sort((a, b) => a.start - b.start);
    const spans: PiiSpan[] = [];
    for (const { start, end, accept } of candidates) {
      // a number a better-ranked detector took (a card, an IBAN, an SSN) is not parsed again as a phone number
      if ((spans.length > 0 && spans[spans.length - 1]!.end > start) || claimed?.overlaps(start, end)) continue;
      if (accept(text.slice(start, end))) spans.push({ kind: 'PHONE', start, end });
    }
    return spans;
  },
};

function candidatesOf(text: string, pattern: RegExp, accept: (candidate: string) => boolean) {
  const found: Array<{ start: number; end: number; accept: (candidate: string) => boolean }> = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) found.push({ start: match.index, end: match.index + match[0].length, accept });
  return found;
}

function valid(candidate: string, country?: CountryCode): boolean {
  return parsePhoneNumberFromString(candidate, country)?.isValid() ?? false;
}
