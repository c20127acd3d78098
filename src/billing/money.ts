/**
 * Money inside the gateway is an integer number of nanodollars (1 USD = 1e9), always a bigint.
 * Outside (API, catalog) it is a USD decimal string. No floating point ever touches an amount.
 */
export type Nanodollars = bigint;

export const NANOS_PER_USD = 1_000_000_000n;
const USD_PATTERN = /^(\d{1,12})(?:\.(\d{1,9}))?$/;

/** "0.15" → 150_000_000n. Throws RangeError for anything that is not a plain non-negative decimal with ≤ 9 decimals. */
export function parseUsd(text: string): Nanodollars {
  const match = USD_PATTERN.exec(text.trim());
  if (!match) throw new RangeError(`"${text}" is not a USD amount (a non-negative decimal with at most 9 decimals)`);
  const whole = BigInt(match[1]!);
  const fraction = BigInt((match[2] ?? '').padEnd(9, '0'));
  return whole * NANOS_PER_USD + fraction;
}

export function isUsdAmount(text: string): boolean {
  return USD_PATTERN.test(text.trim());
}

/** 1_500_000_000n → "1.50"; keeps every significant nanodollar, and at least two decimals. */
export function formatUsd(amount: Nanodollars): string {
  const negative = amount < 0n;
  const absolute = negative ? -amount : amount;
  const whole = absolute / NANOS_PER_USD;
  let fraction = (absolute % NANOS_PER_USD).toString().padStart(9, '0').replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

/** What a part of a charge is for: the kinds of token (and per-item prices) a charge is split into. */
export const COST_KINDS = ['input', 'cachedInput', 'cacheWrite', 'output', 'reasoning', 'audio', 'media'] as const;
export type CostKind = (typeof COST_KINDS)[number];
/** A charge split by kind, in whole nanodollars that add up to the charge; a kind with nothing is left out. */
export type CostByKind = Partial<Record<CostKind, Nanodollars>>;

/**
 * Sums the parts of one request's cost exactly, by kind, and rounds up to a whole nanodollar once, at the
 * end. Token prices are nanodollars per million tokens; the sums are kept in millionths of a nanodollar.
 */
export class CostAccumulator {
  private readonly millionths = new Map<CostKind, bigint>();

  /** `units` tokens (or any per-million unit) at `pricePerMillion` nanodollars per million. */
  addPerMillion(kind: CostKind, units: bigint | number, pricePerMillion: Nanodollars): this {
    return this.add(kind, BigInt(units) * pricePerMillion);
  }

  /** `count` whole items (images, seconds, minutes) at `pricePerItem` nanodollars each. */
  addPerItem(kind: CostKind, count: bigint | number, pricePerItem: Nanodollars): this {
    return this.add(kind, BigInt(count) * pricePerItem * 1_000_000n);
  }

  /** A price per item applied to a fraction of items given as numerator/denominator (e.g. audio ms / 60000). */
  addFraction(kind: CostKind, numerator: bigint, denominator: bigint, pricePerItem: Nanodollars): this {
    // ceil(numerator * price * 1e6 / denominator) keeps the final total an upper bound.
    const scaled = numerator * pricePerItem * 1_000_000n;
    return this.add(kind, (scaled + denominator - 1n) / denominator);
  }

  total(): Nanodollars {
    let sum = 0n;
    for (const value of this.millionths.values()) sum += value;
    return (sum + 999_999n) / 1_000_000n;
  }

  /**
   * The total split by kind into whole nanodollars that add up to it: each kind's exact share rounded down,
   * and the nanodollars the rounding left given one each to the kinds with the largest fractions (the
   * largest remainder method; ties in the order of COST_KINDS). Never more than one per kind: the total is
   * the exact sum rounded up once.
   */
  byKind(): CostByKind {
    const parts: CostByKind = {};
    const fractions: Array<{ kind: CostKind; fraction: bigint }> = [];
    let assigned = 0n;
    for (const kind of COST_KINDS) {
      const value = this.millionths.get(kind);
      if (value === undefined || value === 0n) continue;
      parts[kind] = value / 1_000_000n;
      assigned += parts[kind];
      fractions.push({ kind, fraction: value % 1_000_000n });
    }
    let left = this.total() - assigned;
    fractions.sort((a, b) => (a.fraction === b.fraction ? COST_KINDS.indexOf(a.kind) - COST_KINDS.indexOf(b.kind) : a.fraction > b.fraction ? -1 : 1));
    for (const { kind } of fractions) {
      if (left === 0n) break;
      parts[kind] = parts[kind]! + 1n;
      left--;
    }
    for (const kind of COST_KINDS) if (parts[kind] === 0n) delete parts[kind];
    return parts;
  }

  private add(kind: CostKind, millionths: bigint): this {
    this.millionths.set(kind, (this.millionths.get(kind) ?? 0n) + millionths);
    return this;
  }
}
