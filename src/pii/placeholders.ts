import { PII_KINDS, type PiiKind } from './pii-kinds.js';

/**
 * The placeholders of one request: each distinct value found gets `[KIND_n]`, numbered per kind in the
 * order the values first appear, and the same value always gets the same placeholder, so the model can
 * refer to a value and the answer can be given back with it. Lives in the request's memory only: it is
 * never logged, stored or sent anywhere.
 *
 * A placeholder the client itself wrote (`[EMAIL_1]` in its own text) is never handed out, so that the
 * answer's `[EMAIL_1]` cannot be taken for the client's literal text or the other way round.
 */
export const PLACEHOLDER = new RegExp(`\\[(?:${PII_KINDS.join('|')})_\\d{1,9}\\]`, 'g');

export class Placeholders {
  private readonly byValue = new Map<string, string>();
  private readonly byPlaceholder = new Map<string, string>();
  private readonly counters = new Map<PiiKind, number>();
  private readonly written = new Set<string>();

  /** Notes the placeholder-shaped strings the client wrote anywhere in its body, so that none of them is given out. */
  noteWritten(value: unknown): void {
    if (typeof value === 'string') {
      if (value.includes('[')) for (const found of value.match(PLACEHOLDER) ?? []) this.written.add(found);
    } else if (Array.isArray(value)) {
      for (const item of value) this.noteWritten(item);
    } else if (typeof value === 'object' && value !== null) {
      for (const item of Object.values(value)) this.noteWritten(item);
    }
  }

  placeholderFor(kind: PiiKind, value: string): string {
    const known = this.byValue.get(value);
    if (known !== undefined) return known;
    let placeholder: string;
    do {
      const next = (this.counters.get(kind) ?? 0) + 1;
      this.counters.set(kind, next);
      placeholder = `[${kind}_${next}]`;
    } while (this.written.has(placeholder));
    this.byValue.set(value, placeholder);
    this.byPlaceholder.set(placeholder, value);
    return placeholder;
  }

  /** The value a placeholder stands for; undefined for one this request never gave out. */
  valueOf(placeholder: string): string | undefined {
    return this.byPlaceholder.get(placeholder);
  }

  /** How many distinct values were masked. */
  get size(): number {
    return this.byPlaceholder.size;
  }
}
