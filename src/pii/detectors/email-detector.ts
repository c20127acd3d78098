import type { Detector, PiiSpan } from '../pii-kinds.js';

/**
 * E-mail addresses: a local part, `@`, and a domain of at least two labels whose last is letters only
 * (RFC 5322's dot-atom, without quoted local parts, which prompts do not carry). The scan starts at each
 * `@` and grows outwards, so text without one costs a single `indexOf`. Not an address: `@mention`,
 * `pkg@1.2.3` (a version after the `@`), `user@localhost` (no dot in the domain).
 */
export const emailDetector: Detector = {
  kind: 'EMAIL',
  find(text) {
    const spans: PiiSpan[] = [];
    let at = text.indexOf('@');
    let searchedTo = 0;
    while (at !== -1) {
      let start = at;
      while (start > searchedTo && isLocalChar(text.charCodeAt(start - 1))) start--;
      while (start < at && text.charCodeAt(start) === DOT) start++;
      let end = at + 1;
      while (end < text.length && isDomainChar(text.charCodeAt(end))) end++;
      while (end > at + 1 && (text.charCodeAt(end - 1) === DOT || text.charCodeAt(end - 1) === HYPHEN)) end--;
      if (start < at && text.charCodeAt(at - 1) !== DOT && validDomain(text.slice(at + 1, end))) {
        spans.push({ kind: 'EMAIL', start, end });
        searchedTo = end;
      }
      at = text.indexOf('@', Math.max(at + 1, searchedTo));
    }
    return spans;
  },
};

const DOT = 46;
const HYPHEN = 45;

function isLocalChar(code: number): boolean {
  // letters, digits and ._%+-
  return isAlphanumeric(code) || code === DOT || code === 95 || code === 37 || code === 43 || code === HYPHEN;
}

function isDomainChar(code: number): boolean {
  return isAlphanumeric(code) || code === DOT || code === HYPHEN;
}

function isAlphanumeric(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

const TOP_LEVEL = /^[A-Za-z]{2,24}$/;

function validDomain(domain: string): boolean {
  const labels = domain.split('.');
  if (labels.length < 2 || labels.some((label) => label.length === 0 || label.length > 63 || label.startsWith('-'))) return false;
  return TOP_LEVEL.test(labels[labels.length - 1]!);
}
