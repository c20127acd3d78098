import { isIPv4, isIPv6 } from 'node:net';
import type { Detector, PiiSpan } from '../pii-kinds.js';

/**
 * IPv4 and IPv6 addresses, checked by node's own parser. Near misses left alone: a version string
 * (`v1.2.3.4`, `version 1.2.3.4`, three parts or a part above 255), a time (`10:42:17`), a MAC address,
 * and short colon runs of code such as Python's slice `a[1::2]` (an IPv6 address needs `::` or eight
 * groups, and at least four hex digits).
 */
const IPV4 = /(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w]|\.\d)/g;
const IPV6 = /(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:\.\d{1,3}){0,3}(?:%[\w.]+)?(?![\w:])/g;
/** Words that make the next dotted quad a version: `version 1.2.3.4`, `release 10.0.0.1`. */
const VERSION_WORD = /(?:\b(?:version|ver|release|build|v)\.?\s*)$/i;

export const ipAddressDetector: Detector = {
  kind: 'IP',
  find(text) {
    const spans: PiiSpan[] = [];
    if (text.includes(':')) {
      IPV6.lastIndex = 0;
      for (let match = IPV6.exec(text); match; match = IPV6.exec(text)) {
        const candidate = match[0];
        const address = candidate.replace(/%[\w.]+$/, '');
        const groups = address.split(':').length - 1;
        const hexDigits = address.replace(/[^0-9A-Fa-f]/g, '').length;
        if ((address.includes('::') || groups === 7) && hexDigits >= 4 && isIPv6(address)) {
          spans.push({ kind: 'IP', start: match.index, end: match.index + candidate.length });
        }
      }
    }
    if (text.includes('.')) {
      IPV4.lastIndex = 0;
      for (let match = IPV4.exec(text); match; match = IPV4.exec(text)) {
        if (!isIPv4(match[0]) || VERSION_WORD.test(text.slice(Math.max(0, match.index - 12), match.index))) continue;
        // the IPv4 tail of an IPv6 address (`::ffff:192.0.2.128`) is part of that address
        if (spans.some((span) => span.start < match!.index && match!.index < span.end)) continue;
        spans.push({ kind: 'IP', start: match.index, end: match.index + match[0].length });
      }
    }
    return spans.sort((a, b) => a.start - b.start);
  },
};
