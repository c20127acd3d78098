/**
 * A count a provider reported: undefined when it is absent, null or (on a broken provider) not a
 * non-negative number, so that "not reported" stays apart from 0 (billing/usage.ts).
 */
export function reportedTokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The sum of the counts that were reported; undefined when none was. */
export function sumOfReportedCounts(...counts: ReadonlyArray<number | undefined>): number | undefined {
  let sum: number | undefined;
  for (const count of counts) if (count !== undefined) sum = (sum ?? 0) + count;
  return sum;
}
