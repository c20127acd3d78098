/**
 * Limits count spend per UTC calendar day and month (spec 8). A request's spend belongs to the period
 * in which its money was reserved, so a request that straddles midnight counts once, on the day it began.
 */
export interface SpendPeriods {
  /** `YYYY-MM-DD` */
  readonly day: string;
  /** `YYYY-MM` */
  readonly month: string;
}

/** The last time given as text and its periods: the events of one batch share their time. */
let lastInstant: { readonly text: string; readonly periods: SpendPeriods } | undefined;

export function periodsOf(instant: Date | string): SpendPeriods {
  if (typeof instant === 'string' && lastInstant?.text === instant) return lastInstant.periods;
  const iso = typeof instant === 'string' ? new Date(instant).toISOString() : instant.toISOString();
  const periods = { day: iso.slice(0, 10), month: iso.slice(0, 7) };
  if (typeof instant === 'string') lastInstant = { text: instant, periods };
  return periods;
}

export type PeriodKind = 'day' | 'month';
export const PERIOD_KINDS: readonly PeriodKind[] = ['day', 'month'];
