import type { Detector, PiiSpan } from '../pii-kinds.js';

/**
 * US Social Security numbers as written, `AAA-GG-SSSS` (or with spaces). An SSN has no check digit, so the
 * Social Security Administration's own rules stand in for one: no area 000, 666 or 900–999, no group 00,
 * no serial 0000. Nine digits without separators are left alone: too many other numbers look like that.
 */
const CANDIDATE = /(?<![\w\-.])(\d{3})([- ])(\d{2})\2(\d{4})(?![\w-]|\.\d)/g;

export const ssnDetector: Detector = {
  kind: 'SSN',
  find(text) {
    const spans: PiiSpan[] = [];
    CANDIDATE.lastIndex = 0;
    for (let match = CANDIDATE.exec(text); match; match = CANDIDATE.exec(text)) {
      const area = Number(match[1]);
      if (area === 0 || area === 666 || area >= 900 || match[3] === '00' || match[4] === '0000') continue;
      spans.push({ kind: 'SSN', start: match.index, end: match.index + match[0].length });
    }
    return spans;
  },
};
