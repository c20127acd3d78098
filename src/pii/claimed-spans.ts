import type { PiiSpan } from './pii-kinds.js';

/**
 * Spans already claimed by better-ranked detectors, for a detector whose check is costly (a phone number's
 * is a parse against its numbering plans) to skip candidates that could not win the overlap anyway.
 * Queries are a binary search over the spans by start, with the furthest end seen so far.
 */
export class ClaimedSpans {
  private readonly starts: number[];
  private readonly reach: number[];

  constructor(spans: readonly PiiSpan[]) {
    const sorted = [...spans].sort((a, b) => a.start - b.start);
    this.starts = sorted.map((span) => span.start);
    let furthest = -1;
    this.reach = sorted.map((span) => (furthest = Math.max(furthest, span.end)));
  }

  /** Whether [start, end) overlaps a claimed span. */
  overlaps(start: number, end: number): boolean {
    let low = 0;
    let high = this.starts.length;
    // the number of spans that start before `end`
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.starts[middle]! < end) low = middle + 1;
      else high = middle;
    }
    return low > 0 && this.reach[low - 1]! > start;
  }
}
