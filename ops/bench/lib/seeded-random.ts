/**
 * A small seeded generator (mulberry32), so that a generated corpus or benchmark text is the same on
 * every run and a failure can be read again.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  digits(count: number): string {
    let text = '';
    for (let index = 0; index < count; index++) text += String(this.int(0, 9));
    return text;
  }

  chars(alphabet: string, count: number): string {
    let text = '';
    for (let index = 0; index < count; index++) text += alphabet[this.int(0, alphabet.length - 1)];
    return text;
  }
}
