import { setImmediate as nextTurn } from 'node:timers/promises';
import { emailDetector } from './detectors/email-detector.js';
import { parseSegment, SEGMENT_CHARS, segmentsOf } from './detectors/english-entities.js';
import { ibanDetector } from './detectors/iban-detector.js';
import { ipAddressDetector } from './detectors/ip-address-detector.js';
import { nationalIdDetector } from './detectors/national-id-detector.js';
import { paymentCardDetector } from './detectors/payment-card-detector.js';
import { personNames } from './detectors/person-name-detector.js';
import { phoneDetector } from './detectors/phone-detector.js';
import { secretDetector } from './detectors/secret-detector.js';
import { ssnDetector } from './detectors/ssn-detector.js';
import { streetAddresses } from './detectors/street-address-detector.js';
import { ClaimedSpans } from './claimed-spans.js';
import { PII_KINDS, type Detector, type PiiSpan } from './pii-kinds.js';
import type { Placeholders } from './placeholders.js';

/** The detectors of checked identifiers: structure and checksums, fast enough to run over any text. */
export const IDENTIFIER_DETECTORS: readonly Detector[] = [
  secretDetector,
  emailDetector,
  ibanDetector,
  paymentCardDetector,
  ssnDetector,
  nationalIdDetector,
  ipAddressDetector,
  phoneDetector,
];

/** Where two detectors claim overlapping text, the kind listed first in PII_KINDS wins, then the longer span. */
const RANK = new Map(PII_KINDS.map((kind, index) => [kind, index]));

/**
 * Masks the texts of one request with one set of placeholders. The checked identifiers are found in the
 * whole text at once; names and addresses segment by segment, yielding to the event loop once about a
 * segment's worth of text has been parsed, so a long prompt does not stall other requests while it is read.
 */
export class TextMasker {
  private parsedSinceYield = 0;

  constructor(private readonly placeholders: Placeholders) {}

  async mask(text: string): Promise<string> {
    if (text.length === 0) return text;
    const spans: PiiSpan[] = findIdentifiers(text);
    for (const segment of segmentsOf(text)) {
      if (this.parsedSinceYield >= SEGMENT_CHARS) {
        this.parsedSinceYield = 0;
        await nextTurn();
      }
      const parsed = parseSegment(segment);
      spans.push(...streetAddresses(parsed), ...personNames(parsed));
      this.parsedSinceYield += segment.text.length;
    }
    return this.replace(text, spans);
  }

  private replace(text: string, spans: PiiSpan[]): string {
    const kept = withoutOverlaps(spans);
    if (kept.length === 0) return text;
    let masked = '';
    let at = 0;
    for (const span of kept) {
      masked += text.slice(at, span.start) + this.placeholders.placeholderFor(span.kind, text.slice(span.start, span.end));
      at = span.end;
    }
    return masked + text.slice(at);
  }
}

/**
 * The checked identifiers of a text (no names or addresses), overlaps unresolved. The phone detector,
 * ranked last and the costliest to confirm, is told what the others found first.
 */
export function findIdentifiers(text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  for (const detector of IDENTIFIER_DETECTORS) spans.push(...detector.find(text, detector === phoneDetector ? new ClaimedSpans(spans) : undefined));
  return spans;
}

/** The spans to replace, in text order: of overlapping spans, the best ranked (then the longest) is kept. */
export function withoutOverlaps(spans: readonly PiiSpan[]): PiiSpan[] {
  const ordered = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: PiiSpan[] = [];
  for (const span of ordered) {
    const last = kept[kept.length - 1];
    if (!last || span.start >= last.end) kept.push(span);
    else if (better(span, last)) kept[kept.length - 1] = span;
  }
  return kept;
}

function better(a: PiiSpan, b: PiiSpan): boolean {
  const rank = RANK.get(a.kind)! - RANK.get(b.kind)!;
  return rank < 0 || (rank === 0 && a.end - a.start > b.end - b.start);
}
