import type { Detector } from '../../../../src/pii/pii-kinds.js';

/** The values a detector finds in a text, as written there. */
export function found(detector: Detector, text: string): string[] {
  return detector.find(text).map((span) => text.slice(span.start, span.end));
}
