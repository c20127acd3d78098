/**
 * The overview's periods, in UTC days (`YYYY-MM-DD`), the days spend and limits count in: today against
 * yesterday, and this month so far against the same days of the month before (1 to today's day of the
 * month, cut at that month's last day), so that the 10th is held against the first ten days of the month
 * before and not against all of it.
 */
export interface OverviewPeriods {
  readonly today: string;
  readonly yesterday: string;
  readonly monthStart: string;
  readonly previousMonthStart: string;
  readonly previousMonthEnd: string;
}

const DAY_MS = 86_400_000;
const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

export function overviewPeriods(now: Date): OverviewPeriods {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const dayOfMonth = now.getUTCDate();
  // Day 0 of a month is the last day of the month before it.
  const previousMonthLastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return {
    today: dayOf(now.getTime()),
    yesterday: dayOf(now.getTime() - DAY_MS),
    monthStart: dayOf(Date.UTC(year, month, 1)),
    previousMonthStart: dayOf(Date.UTC(year, month - 1, 1)),
    previousMonthEnd: dayOf(Date.UTC(year, month - 1, Math.min(dayOfMonth, previousMonthLastDay))),
  };
}
