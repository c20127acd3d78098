import type { Detector, PiiSpan } from '../pii-kinds.js';
import { luhnValid } from './checksums.js';

/**
 * Payment card numbers: 13 to 19 digits, whole or in groups split by single spaces or hyphens, of a
 * known network's prefix and length, that pass the Luhn check (ISO/IEC 7812). A digit run inside a longer
 * token (a UUID's last group, a reference with letters) is not a card number.
 */
const CANDIDATE = /(?<![\w\-.])\d{4}(?:[ -]?\d{1,6}){2,5}(?![\w-]|[.,]\d)/g;

/** Networks by prefix, with the lengths they issue. */
const NETWORKS: ReadonlyArray<{ readonly prefix: RegExp; readonly lengths: readonly number[] }> = [
  { prefix: /^4/, lengths: [13, 16, 19] }, // Visa
  { prefix: /^(?:5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720))/, lengths: [16] }, // Mastercard
  { prefix: /^3[47]/, lengths: [15] }, // American Express
  { prefix: /^(?:6011|65|64[4-9])/, lengths: [16, 19] }, // Discover
  { prefix: /^3(?:0[0-5]|[689])/, lengths: [14, 16, 19] }, // Diners Club
  { prefix: /^35(?:2[89]|[3-8]\d)/, lengths: [16, 19] }, // JCB
  { prefix: /^62/, lengths: [16, 17, 18, 19] }, // UnionPay
  { prefix: /^(?:5018|5020|5038|5893|6304|67[0-9]\d)/, lengths: [12, 13, 14, 15, 16, 17, 18, 19] }, // Maestro
];

export const paymentCardDetector: Detector = {
  kind: 'CARD',
  find(text) {
    const spans: PiiSpan[] = [];
    CANDIDATE.lastIndex = 0;
    for (let match = CANDIDATE.exec(text); match; match = CANDIDATE.exec(text)) {
      const candidate = match[0];
      if (!consistentSeparators(candidate)) continue;
      const digits = candidate.replace(/[ -]/g, '');
      if (isCardNumber(digits)) spans.push({ kind: 'CARD', start: match.index, end: match.index + candidate.length });
    }
    return spans;
  },
};

export function isCardNumber(digits: string): boolean {
  return NETWORKS.some((network) => network.prefix.test(digits) && network.lengths.includes(digits.length)) && luhnValid(digits);
}

/** One kind of separator, if any: `4111 1111-1111 1111` is not how a card number is written. */
function consistentSeparators(candidate: string): boolean {
  return !(candidate.includes(' ') && candidate.includes('-'));
}
