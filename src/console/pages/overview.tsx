import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { ListRecord, OverviewRecord, ProjectionStatusRecord } from '../../admin-records.js';
import { get } from '../api.js';
import { formatUsd, formatUsdChange } from '../money.js';
import { formatTime } from '../request-format.js';
import { href, requestsHref } from '../routes.js';
import { TrafficChart } from '../traffic-chart.js';
import { ErrorNotice, Loading, useLoad } from '../ui.js';
import { Attention, TopSpenders } from './overview-lists.js';

/**
 * The first page after sign-in: the whole gateway at a glance (`GET /admin/v1/overview` and the
 * projections' lag from `GET /admin/v1/projections`). Each figure links to the page it comes from: spend
 * and traffic to the request log over the same time, the open reservations to the open requests, the lag
 * to the projections.
 */
export function OverviewPage() {
  const [period, setPeriod] = useState<OverviewRecord['top']['period']>('month');
  const overview = useLoad(() => get<OverviewRecord>('/overview', { period }), [period]);
  const projections = useLoad(() => get<ListRecord<ProjectionStatusRecord>>('/projections'), []);
  const shown = overview.data;
  return (
    <>
      <h1 tabIndex={-1}>Overview</h1>
      <div class="actions">
        <button
          type="button"
          onClick={() => {
            overview.reload();
            projections.reload();
          }}
        >
          Refresh
        </button>
        {shown ? <span class="hint">As of {formatTime(shown.as_of)} UTC, every organization.</span> : null}
      </div>
      <ErrorNotice error={overview.error} action="load the overview" />
      <Loading loaded={overview} />
      {shown ? (
        <>
          <dl class="facts overview">
            <Figure name="Spend today" testId="spend-today" value={formatUsd(shown.spend.today.total_usd)} link={requestsHref(undefined, { from: midnight(shown.spend.today.from) })}>
              yesterday <span data-testid="spend-yesterday">{formatUsd(shown.spend.yesterday.total_usd)}</span> ({formatUsdChange(shown.spend.today.total_usd, shown.spend.yesterday.total_usd)})
            </Figure>
            <Figure name="Spend this month" testId="spend-month" value={formatUsd(shown.spend.month.total_usd)} link={requestsHref(undefined, { from: midnight(shown.spend.month.from) })}>
              same days last month <span data-testid="spend-previous-month">{formatUsd(shown.spend.previous_month.total_usd)}</span> (
              {formatUsdChange(shown.spend.month.total_usd, shown.spend.previous_month.total_usd)})
            </Figure>
            <Figure name="Requests, last hour" testId="requests-last-hour" value={String(shown.traffic.requests)} link={requestsHref(undefined, { from: shown.traffic.from, to: shown.traffic.to })}>
              reserved in the last 60 minutes
            </Figure>
            <Figure name="Errors, last hour" testId="errors-last-hour" value={String(shown.traffic.errors)} link={requestsHref(undefined, { status: 'error', from: shown.traffic.from, to: shown.traffic.to })}>
              of those requests
            </Figure>
            <Figure name="Open reservations" testId="open-reservations" value={String(shown.open_reservations.count)} link={requestsHref(undefined, { status: 'open' })}>
              holding <span data-testid="open-amount">{formatUsd(shown.open_reservations.amount_usd)}</span>
              {shown.open_reservations.overdue > 0 ? `, ${shown.open_reservations.overdue} past their deadline` : ''}
            </Figure>
            <ProjectionLag projections={projections.data?.data} error={projections.error} />
          </dl>
          <section aria-labelledby="traffic">
            <h2 id="traffic">Requests and errors per minute, last hour (UTC)</h2>
            <TrafficChart
              minutes={shown.traffic.data}
              summary={`${shown.traffic.requests} requests and ${shown.traffic.errors} errors from ${formatTime(shown.traffic.from)} to ${formatTime(shown.traffic.to)} UTC; at most ${Math.max(0, ...shown.traffic.data.map((minute) => minute.requests))} requests in one minute.`}
            />
          </section>
          <TopSpenders top={shown.top} period={period} onPeriod={setPeriod} />
          <Attention organizations={shown.attention} />
        </>
      ) : null}
    </>
  );
}

const midnight = (day: string) => `${day}T00:00:00Z`;

function Figure({ name, testId, value, link, children }: { name: string; testId: string; value: string; link: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{name}</dt>
      <dd>
        <a href={link} data-testid={testId}>
          {value}
        </a>
        <span class="hint">{children}</span>
      </dd>
    </div>
  );
}

/** The largest lag among the generations serving reads: what the read models may not show yet. */
function ProjectionLag({ projections, error }: { projections: ProjectionStatusRecord[] | undefined; error: unknown }) {
  const active = (projections ?? []).filter((projection) => projection.status === 'active');
  const events = Math.max(0, ...active.map((projection) => projection.lag?.events_behind ?? 0));
  const ms = Math.max(0, ...active.map((projection) => projection.lag?.ms_behind ?? 0));
  return (
    <Figure name="Projection lag" testId="projection-lag" value={error ? 'unknown' : projections ? `${ms} ms` : '…'} link={href({ page: 'projections' })}>
      {projections ? `${events} events behind, ${active.length} read models` : ''}
    </Figure>
  );
}
