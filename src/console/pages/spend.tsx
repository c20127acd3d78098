import { useMemo, useState } from 'preact/hooks';
import { get, withQuery } from '../api.js';
import type { DailySpendGroup, DailySpendRecord, KeyRecord, ListRecord, SpaceRecord, SpendByKindRecord, SpendReportRecord } from '../../admin-records.js';
import { formatUsd } from '../money.js';
import { daysBetween, SpendChart, type SpendSeries } from '../spend-chart.js';
import { ErrorNotice, Loading, monthStart, Pager, today, useLoad, usePages } from '../ui.js';

const GROUPS: Record<DailySpendGroup, string> = { model: 'Model', key: 'Key', space: 'Space', type: 'Type' };

/** The kinds a charge is split into, as the spend report names them. */
const KINDS: ReadonlyArray<readonly [keyof SpendByKindRecord, string]> = [
  ['input_usd', 'Input'],
  ['cached_input_usd', 'Cached input (cache reads)'],
  ['cache_write_usd', 'Cache writes'],
  ['output_usd', 'Output'],
  ['reasoning_usd', 'Reasoning'],
  ['audio_usd', 'Audio'],
  ['media_usd', 'Images, audio minutes, video seconds'],
];

interface Filter {
  from: string;
  to: string;
  groupBy: DailySpendGroup;
}

/**
 * Settled spend over a period: a chart by day stacked by the chosen group, the figures below it, and the
 * CSV of the audit report for the same filter (computed by the gateway from the event log).
 */
export function SpendTab({ orgId }: { orgId: string }) {
  const org = `/organizations/${encodeURIComponent(orgId)}`;
  const [draft, setDraft] = useState<Filter>(() => ({ from: monthStart(), to: today(), groupBy: 'model' }));
  const [filter, setFilter] = useState<Filter>(draft);
  const spend = useLoad(() => get<DailySpendRecord>(`${org}/spend/daily`, { from: filter.from, to: filter.to, group_by: filter.groupBy }), [orgId, filter]);
  const names = useLoad(() => groupNames(org, filter.groupBy), [orgId, filter.groupBy]);
  const view = useMemo(() => (spend.data ? chartOf(spend.data, names.data ?? new Map()) : undefined), [spend.data, names.data]);
  const pages = usePages(spend.data?.data, 31);
  const csv = withQuery('/admin/v1/audit', { organization_id: orgId, from: filter.from, to: filter.to, group_by: filter.groupBy, format: 'csv' });
  return (
    <section aria-labelledby="spend">
      <h2 id="spend">Spend</h2>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          setFilter({ ...draft });
        }}
      >
        <label>
          From
          <input type="date" name="from" required value={draft.from} onInput={(event) => setDraft({ ...draft, from: event.currentTarget.value })} />
        </label>
        <label>
          To
          <input type="date" name="to" required value={draft.to} onInput={(event) => setDraft({ ...draft, to: event.currentTarget.value })} />
        </label>
        <label>
          Stacked by
          <select name="group_by" aria-label="Stacked by" value={draft.groupBy} onChange={(event) => setDraft({ ...draft, groupBy: event.currentTarget.value as DailySpendGroup })}>
            {Object.entries(GROUPS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary">
          Show
        </button>
        <a class="button" href={csv} download={`spend-${orgId}-${filter.from}-${filter.to}-by-${filter.groupBy}.csv`}>
          Download CSV
        </a>
      </form>
      <ErrorNotice error={spend.error} action="load the spend" />
      <Loading loaded={spend} />
      {spend.data && view ? (
        <>
          <p>
            Total <strong data-testid="spend-total">{formatUsd(spend.data.total_usd)}</strong> from {spend.data.from} to {spend.data.to}, by {GROUPS[spend.data.group_by].toLowerCase()}.
          </p>
          <SpendChart days={view.days} series={view.series} summary={`Spend per day from ${spend.data.from} to ${spend.data.to}, stacked by ${spend.data.group_by}: ${formatUsd(spend.data.total_usd)} in total.`} />
          {spend.data.data.length === 0 ? (
            <p>No settled spend in this period.</p>
          ) : (
            <table data-testid="spend-table">
              <caption>Spend per day and {spend.data.group_by}</caption>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col">{GROUPS[spend.data.group_by]}</th>
                  <th scope="col" class="number">Requests</th>
                  <th scope="col" class="number">Spend</th>
                </tr>
              </thead>
              <tbody>
                {pages.items.map((row) => (
                  <tr key={`${row.day}/${row[spend.data!.group_by]}`}>
                    <td>{row.day}</td>
                    <td>{labelOf(row[spend.data!.group_by] ?? null, names.data)}</td>
                    <td class="number">{row.requests}</td>
                    <td class="number">{formatUsd(row.cost_usd)}</td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr>
                  <th scope="row" colSpan={3}>
                    Total
                  </th>
                  <td class="number">{formatUsd(spend.data.total_usd)}</td>
                </tr>
              </tfoot>
            </table>
          )}
          <Pager label="Spend" {...pages.pager} />
          <SpendByKind org={org} from={filter.from} to={filter.to} />
        </>
      ) : null}
    </section>
  );
}

/**
 * The period's spend split by kind (the spend report's `total_by_kind`): what input, cache reads, cache
 * writes, output and reasoning cost, so that what caching saved can be read off. The PII masking fee is
 * spend of its own type, no kind.
 */
function SpendByKind({ org, from, to }: { org: string; from: string; to: string }) {
  const report = useLoad(() => get<SpendReportRecord>(`${org}/spend`, { from, to, group_by: 'type' }), [org, from, to]);
  if (!report.data) return <ErrorNotice error={report.error} action="load the spend by kind" />;
  const byKind = report.data.total_by_kind;
  return (
    <table data-testid="spend-by-kind">
      <caption>Spend by kind of token from {report.data.from} to {report.data.to}</caption>
      <thead>
        <tr>
          <th scope="col">Kind</th>
          <th scope="col" class="number">Spend</th>
        </tr>
      </thead>
      <tbody>
        {KINDS.map(([field, label]) => (
          <tr key={field} data-kind={field}>
            <th scope="row">{label}</th>
            <td class="number">{formatUsd(byKind[field])}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Keys and spaces are shown by name next to their id. */
async function groupNames(org: string, groupBy: DailySpendGroup): Promise<Map<string, string>> {
  if (groupBy === 'key') return new Map((await get<ListRecord<KeyRecord>>(`${org}/keys`)).data.map((key) => [key.id, key.name ?? key.id]));
  if (groupBy === 'space') return new Map((await get<ListRecord<SpaceRecord>>(`${org}/spaces`)).data.map((space) => [space.id, space.name]));
  return new Map();
}

function labelOf(group: string | null, names: Map<string, string> | undefined): string {
  if (group === null) return '(none)';
  const name = names?.get(group);
  return name && name !== group ? `${name} (${group})` : group;
}

function chartOf(spend: DailySpendRecord, names: Map<string, string>): { days: string[]; series: SpendSeries[] } {
  const days = daysBetween(spend.from, spend.to);
  const index = new Map(days.map((day, position) => [day, position]));
  const byGroup = new Map<string, string[]>();
  for (const row of spend.data) {
    const label = labelOf(row[spend.group_by] ?? null, names);
    const amounts = byGroup.get(label) ?? days.map(() => '0.00');
    amounts[index.get(row.day) ?? 0] = row.cost_usd;
    byGroup.set(label, amounts);
  }
  return { days, series: [...byGroup].map(([label, amounts]) => ({ label, amounts })) };
}
