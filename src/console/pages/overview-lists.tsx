import type { AttentionRecord, OverviewRecord } from '../../admin-records.js';
import { formatUsd } from '../money.js';
import { href, requestsHref } from '../routes.js';

type Period = OverviewRecord['top']['period'];
const PERIODS: Record<Period, string> = { today: 'Today', month: 'This month' };

/**
 * The organizations, keys and models that spent most in the period. An organization links to its spend,
 * a key and a model to their requests of the period.
 */
export function TopSpenders({ top, period, onPeriod }: { top: OverviewRecord['top']; period: Period; onPeriod: (period: Period) => void }) {
  const since = { from: `${top.from}T00:00:00Z` };
  return (
    <section aria-labelledby="top">
      <h2 id="top">Top spenders</h2>
      <div class="actions" role="group" aria-label="Period of the top spenders">
        {(Object.keys(PERIODS) as Period[]).map((choice) => (
          <button key={choice} type="button" aria-pressed={choice === period} class={choice === period ? 'primary' : ''} onClick={() => onPeriod(choice)}>
            {PERIODS[choice]}
          </button>
        ))}
        <span class="hint">
          {top.from === top.to ? top.from : `${top.from} to ${top.to}`}, settled spend by the UTC day of the reserve
        </span>
      </div>
      <div class="columns three">
        <Ranking
          caption="Organizations"
          testId="top-organizations"
          rows={top.organizations.map((row) => ({ ...row, key: row.organization_id, name: row.name ?? row.organization_id, link: href({ page: 'organization', orgId: row.organization_id, tab: 'spend' }) }))}
        />
        <Ranking
          caption="Keys"
          testId="top-keys"
          rows={top.keys.map((row) => ({ ...row, key: row.key_id, name: row.name ?? row.key_id, link: requestsHref(row.organization_id, { key_id: row.key_id, ...since }) }))}
        />
        <Ranking caption="Models" testId="top-models" rows={top.models.map((row) => ({ ...row, key: row.model, name: row.model, link: requestsHref(undefined, { model: row.model, ...since }) }))} />
      </div>
    </section>
  );
}

function Ranking({ caption, testId, rows }: { caption: string; testId: string; rows: Array<{ key: string; name: string; link: string; cost_usd: string; requests: number }> }) {
  return (
    <table data-testid={testId}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col" class="number">Requests</th>
          <th scope="col" class="number">Spend</th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={3}>No spend in this period.</td>
          </tr>
        ) : null}
        {rows.map((row) => (
          <tr key={row.key} data-id={row.key}>
            <td>
              <a href={row.link}>{row.name}</a>
            </td>
            <td class="number">{row.requests}</td>
            <td class="number">{formatUsd(row.cost_usd)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const REASONS: Record<AttentionRecord['reason'], string> = { balance: 'balance', daily_limit: 'daily spend limit', monthly_limit: 'monthly spend limit' };

/** Organizations with under a tenth left of their balance or of a spend limit, least left first. */
export function Attention({ organizations }: { organizations: AttentionRecord[] }) {
  return (
    <section aria-labelledby="attention">
      <h2 id="attention">Close to a balance or a limit</h2>
      {organizations.length === 0 ? (
        <p>Every organization has at least a tenth left of its balance and of its spend limits.</p>
      ) : (
        <table data-testid="attention">
          <caption>Under 10 % left: the balance against every credit added, a limit against what it counts in its period</caption>
          <thead>
            <tr>
              <th scope="col">Organization</th>
              <th scope="col">Of its</th>
              <th scope="col" class="number">Left</th>
              <th scope="col" class="number">Of</th>
              <th scope="col" class="number">Left (%)</th>
            </tr>
          </thead>
          <tbody>
            {organizations.map((row) => (
              <tr key={`${row.organization_id}/${row.reason}`} data-id={row.organization_id}>
                <td>
                  <a href={href({ page: 'organization', orgId: row.organization_id, tab: 'overview' })}>{row.name}</a>
                  {row.status === 'blocked' ? <span class="status blocked">blocked</span> : null}
                </td>
                <td>{REASONS[row.reason]}</td>
                <td class="number">{formatUsd(row.left_usd)}</td>
                <td class="number">{formatUsd(row.of_usd)}</td>
                <td class="number">{row.left_percent.toFixed(1)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
