/**
 * Money as the console shows it. The admin API writes USD as decimal strings with every digit the amount
 * has ("0.00007", "1234.50", "-0.2"); the console adds the dollar sign and thousands separators and keeps
 * those digits (at least two decimals), working on the string: a float would lose digits past the 15th and
 * print small amounts as 7e-5.
 */
export function formatUsd(amount: string): string {
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(amount.trim());
  if (!match) return amount;
  const [, sign, whole, fraction = ''] = match;
  const grouped = whole!.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}$${grouped}.${fraction.replace(/0+$/, '').padEnd(2, '0')}`;
}

/** An amount that may be absent (no limit, no cost yet). */
export const formatUsdOrNone = (amount: string | null | undefined, none = '—') => (amount === null || amount === undefined ? none : formatUsd(amount));

/**
 * A chart axis label. Chart.js hands the tick's position as a float (0.00007000000000000001): it is a
 * place on the axis, not an amount, so it is written with the fewest decimals (two at least, twelve at
 * most) that give its value back, in fixed notation; exact amounts are in the tooltips and the tables.
 */
export function formatUsdTick(value: number): string {
  let decimals = 2;
  while (decimals < 12 && Math.abs(Number(value.toFixed(decimals)) - value) > Math.abs(value) * 1e-9) decimals++;
  return formatUsd(value.toFixed(decimals));
}

/** A daily and monthly spend limit, either of which may be unset. */
export const formatLimits = (pair: { daily_usd: string | null; monthly_usd: string | null }) => `daily ${formatUsdOrNone(pair.daily_usd)}, monthly ${formatUsdOrNone(pair.monthly_usd)}`;

const NANOS = /^(-?)(\d+)(?:\.(\d{0,9}))?$/;

/** An API amount as integer nanodollars, exactly (the API writes at most nine decimals). */
function nanosOf(amount: string): bigint {
  const match = NANOS.exec(amount.trim());
  if (!match) throw new RangeError(`${amount} is not a USD amount`);
  const value = BigInt(match[2]!) * 1_000_000_000n + BigInt((match[3] ?? '').padEnd(9, '0'));
  return match[1] ? -value : value;
}

/** `amount − before`, signed (`+$0.0013`, `-$0.20`, `±$0.00`): how a period compares with the one before. */
export function formatUsdChange(amount: string, before: string): string {
  const change = nanosOf(amount) - nanosOf(before);
  if (change === 0n) return '±$0.00';
  const size = change < 0n ? -change : change;
  const text = `${size / 1_000_000_000n}.${(size % 1_000_000_000n).toString().padStart(9, '0')}`;
  return `${change < 0n ? '-' : '+'}${formatUsd(text)}`;
}
