import { isIPv4, isIPv6 } from 'node:net';
import { isWordCharAt, type Detector, type PiiSpan } from '../pii-kinds.js';

/**
 * IPv4 and IPv6 addresses, checked by node's own parser. Near misses left alone: a version string
 * (`v1.2.3.4`, `version 1.2.3.4`, three parts or a part above 255), a time (`10:42:17`), a MAC address,
 * and short colon runs of code such as Python's slice `a[1::2]` (an IPv6 address needs `::` or eight
 * groups, and at least four hex digits).
 *
 * The boundaries are checked in code rather than by lookbehind, and an IPv6 candidate is grown from each
 * `:` outwards: the scan then costs a few megabytes of text per millisecond instead of a regex attempt at
 * every letter of the text.
 */
const IPV4 = /\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}/g;
/** Words that make the next dotted quad a version: `version 1.2.3.4`, `release 10.0.0.1`. */
const VERSION_WORD = /(?:\b(?:version|ver|release|build|v)\.?\s*)$/i;

export const ipAddressDetector: Detector = {
  kind: 'IP',
  find(text) {
    const spans = ipv6Spans(text);
    IPV4.lastIndex = 0;
    for (let match = IPV4.exec(text); match; match = IPV4.exec(text)) {
      const start = match.index;
      const end = start + match[0].length;
      if (isWordCharAt(text, start - 1) || text.charCodeAt(start - 1) === DOT) continue;
      if (isWordCharAt(text, end) || (text.charCodeAt(end) === DOT && isDigit(text.charCodeAt(end + 1)))) continue;
      if (!isIPv4(match[0]) || VERSION_WORD.test(text.slice(Math.max(0, start - 12), start))) continue;
      // the IPv4 tail of an IPv6 address (`::ffff:192.0.2.128`) is part of that address
      if (spans.some((span) => span.start < start && start < span.end)) continue;
      spans.push({ kind: 'IP', start, end });
    }
    return spans.sort((a, b) => a.start - b.start);
  },
};

const DOT = 46;
const COLON = 58;
const PERCENT = 37;

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isHex(code: number): boolean {
  return isDigit(code) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
}

/** IPv6 addresses: each run of hex digits and colons (with an IPv4 tail and a zone) around a `:`. */
function ipv6Spans(text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  for (let colon = text.indexOf(':'); colon !== -1; ) {
    let start = colon;
    while (start > 0 && (isHex(text.charCodeAt(start - 1)) || text.charCodeAt(start - 1) === COLON)) start--;
    let end = colon + 1;
    while (end < text.length && (isHex(text.charCodeAt(end)) || text.charCodeAt(end) === COLON || text.charCodeAt(end) === DOT)) end++;
    // a sentence's full stop or colon after the address is not part of it
    while (end > colon + 1 && (text.charCodeAt(end - 1) === DOT || text.charCodeAt(end - 1) === COLON)) end--;
    let zoneEnd = end;
    if (text.charCodeAt(end) === PERCENT) for (zoneEnd = end + 1; zoneEnd < text.length && (isWordCharAt(text, zoneEnd) || text.charCodeAt(zoneEnd) === DOT); ) zoneEnd++;
    const bounded = !isWordCharAt(text, start - 1) && text.charCodeAt(start - 1) !== DOT && !isWordCharAt(text, zoneEnd) && text.charCodeAt(zoneEnd) !== COLON;
    if (bounded && isIPv6Address(text.slice(start, end))) spans.push({ kind: 'IP', start, end: zoneEnd });
    const next = text.indexOf(':', Math.max(colon + 1, zoneEnd));
    colon = next;
  }
  return spans;
}

function isIPv6Address(candidate: string): boolean {
  const colons = candidate.split(':').length - 1;
  if (colons < 2 || !(candidate.includes('::') || colons === 7)) return false;
  return candidate.replace(/[^0-9A-Fa-f]/g, '').length >= 4 && isIPv6(candidate);
}
