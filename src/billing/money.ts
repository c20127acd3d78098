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

/**
 * Sums the parts of one request's cost exactly and rounds up to a whole nanodollar once, at the end.
 * Token prices are nanodollars per million tokens; the sum is kept in millionths of a nanodollar.
 */
export class CostAccumulator {
  private millionths = 0n;

  /** `units` tokens (or any per-million unit) at `pricePerMillion` nanodollars per million. */
  addPerMillion(units: bigint | number, pricePerMillion: Nanodollars): this {
    this.millionths += BigInt(units) * pricePerMillion;
    return this;
  }

  /** `count` whole items (images, seconds, minutes) at `pricePerItem` nanodollars each. */
  addPerItem(count: bigint | number, pricePerItem: Nanodollars): this {
    this.millionths += BigInt(count) * pricePerItem * 1_000_000n;
    return this;
  }

  /** A price per item applied to a fraction of items given as numerator/denominator (e.g. audio ms / 60000). */
  addFraction(numerator: bigint, denominator: bigint, pricePerItem: Nanodollars): this {
    // ceil(numerator * price * 1e6 / denominator) keeps the final total an upper bound.
    const scaled = numerator * pricePerItem * 1_000_000n;
    this.millionths += (scaled + denominator - 1n) / denominator;
    return this;
  }

  total(): Nanodollars {
    return (this.millionths + 999_999n) / 1_000_000n;
  }
}
