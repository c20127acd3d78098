/**
 * What the masker hides, one kind per detector. A kind names the placeholder a value becomes
 * (`[EMAIL_1]`), so the model can still tell an e-mail address from a phone number and refer to each.
 * The checked identifiers come first: their detectors confirm a value by its structure or checksum; names
 * and street addresses are found by a language model of English (compromise) and are a best effort.
 */
export const PII_KINDS = ['SECRET', 'EMAIL', 'IBAN', 'CARD', 'SSN', 'NATIONAL_ID', 'IP', 'PHONE', 'ADDRESS', 'NAME'] as const;

export type PiiKind = (typeof PII_KINDS)[number];

/** One value found in a text: `text.slice(start, end)`. */
export interface PiiSpan {
  readonly kind: PiiKind;
  readonly start: number;
  readonly end: number;
}

/**
 * Finds the values of one kind in a text; pure and deterministic. `claimed` holds what better-ranked
 * detectors found in the same text: a detector may skip a candidate that overlaps it (it would lose the
 * overlap), and one with a costly check does.
 */
export interface Detector {
  readonly kind: PiiKind;
  find(text: string, claimed?: { overlaps(start: number, end: number): boolean }): PiiSpan[];
}

/** True when the character at `index` continues a word (so a match there would be part of a longer token). */
export function isWordCharAt(text: string, index: number): boolean {
  if (index < 0 || index >= text.length) return false;
  const code = text.charCodeAt(index);
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code > 127;
}
