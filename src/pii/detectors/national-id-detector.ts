import type { Detector, PiiSpan } from '../pii-kinds.js';
import { luhnValid } from './checksums.js';

/**
 * National identity numbers that carry a check digit, so that a match is a real number and not a lookalike:
 * - Canada's Social Insurance Number, `123 456 782` or `123-456-782` (Luhn; never starting with 0 or 8);
 * - Spain's DNI, `12345678Z`, and NIE, `X1234567L` (the letter is the number mod 23);
 * - Brazil's CPF, `123.456.789-09` (two mod-11 check digits).
 * Each is looked for in the form its owners write it; a bare run of digits is left to the other detectors.
 */
interface NationalId {
  readonly pattern: RegExp;
  valid(match: string): boolean;
}

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

const NATIONAL_IDS: readonly NationalId[] = [
  {
    pattern: /(?<![\w\-.])[1-79]\d{2}([ -])\d{3}\1\d{3}(?![\w-]|\.\d)/g,
    valid: (match) => luhnValid(match.replace(/\D/g, '')),
  },
  {
    pattern: /(?<![\w-])(?:\d{8}|[XYZ]\d{7})-?[A-Z](?![\w-])/g,
    valid(match) {
      const plain = match.replace('-', '');
      const number = Number(plain.slice(0, -1).replace(/^[XYZ]/, (prefix) => String('XYZ'.indexOf(prefix))));
      return DNI_LETTERS[number % 23] === plain.slice(-1);
    },
  },
  {
    pattern: /(?<![\w\-.])\d{3}\.\d{3}\.\d{3}-\d{2}(?![\w-]|\.\d)/g,
    valid: (match) => cpfValid(match.replace(/\D/g, '')),
  },
];

export const nationalIdDetector: Detector = {
  kind: 'NATIONAL_ID',
  find(text) {
    const spans: PiiSpan[] = [];
    for (const { pattern, valid } of NATIONAL_IDS) {
      pattern.lastIndex = 0;
      for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
        if (valid(match[0])) spans.push({ kind: 'NATIONAL_ID', start: match.index, end: match.index + match[0].length });
      }
    }
    return spans;
  },
};

/** Brazil's CPF: each check digit is 11 minus the weighted sum mod 11 (0 when that is 10 or 11); all-equal digits are invalid. */
function cpfValid(digits: string): boolean {
  if (/^(\d)\1{10}$/.test(digits)) return false;
  const check = (length: number) => {
    let sum = 0;
    for (let index = 0; index < length; index++) sum += Number(digits[index]) * (length + 1 - index);
    const rest = (sum * 10) % 11;
    return rest === 10 ? 0 : rest;
  };
  return check(9) === Number(digits[9]) && check(10) === Number(digits[10]);
}
