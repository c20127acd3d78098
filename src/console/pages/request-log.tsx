import { useState } from 'preact/hooks';
import type { PageRecord, RequestLogRecord } from '../../admin-records.js';
import { get } from '../api.js';
import { formatUsd, formatUsdOrNone } from '../money.js';
import { formatDuration, formatOutcome, formatTime, formatUsage } from '../request-format.js';
import { href, type RequestFilter } from '../routes.js';
import { ErrorNotice, Loading, Pager, useCursor, useLoad } from '../ui.js';
import { RequestEvents } from './request-events.js';
import { RequestFilters, RequestSearch } from './request-filters.js';

const LOG_PAGE_SIZE = 50;

/**
 * The request log of one organization, or of all: newest first, 50 a page by keyset (the API's `after`),
 * filtered as the URL says; a request id found by the search opens its page with it on top
 * (`from_id`), and a row's events open on a click.
 */
export function RequestLog({ orgId, filter }: { orgId?: string; filter: RequestFilter }) {
  return (
    <section aria-labelledby="request-log">
      <h2 id="request-log">{orgId === undefined ? 'Every organization' : 'Requests'}</h2>
      <p class="hint">
        Every request that reserved money, from its reserve to its close, newest first; requests refused before their reserve cost nothing and are not
        here. No message content is stored.
      </p>
      <RequestSearch orgId={orgId} />
      {/* keyed by the filter: a new filter starts again at the first page */}
      <RequestFilters key={JSON.stringify(filter)} orgId={orgId} filter={filter} />
      <RequestPages key={JSON.stringify([orgId, filter])} orgId={orgId} filter={filter} />
    </section>
  );
}

function RequestPages({ orgId, filter }: { orgId: string | undefined; filter: RequestFilter }) {
  const cursor = useCursor();
  const [open, setOpen] = useState<string | undefined>(filter.request);
  const { request, ...filters } = filter;
  const path = orgId === undefined ? '/requests' : `/organizations/${encodeURIComponent(orgId)}/requests`;
  const start = cursor.after ? { after: cursor.after } : request ? { from_id: request } : {};
  const list = useLoad(() => get<PageRecord<RequestLogRecord>>(path, { limit: LOG_PAGE_SIZE, ...filters, ...start }), [cursor.after]);
  const rows = list.data?.data ?? [];
  return (
    <>
      {open ? <RequestEvents requestId={open} onClose={() => setOpen(undefined)} /> : null}
      <ErrorNotice error={list.error} action="load the requests" />
      <Loading loaded={list} />
      {list.data && rows.length === 0 && cursor.pageNumber === 1 ? <p>No request matches.</p> : null}
      {rows.length > 0 ? (
        <div class="scroll">
          <table class="requests" data-testid="request-log">
            <thead>
              <tr>
                <th scope="col">Time (UTC)</th>
                <th scope="col">Request</th>
                {orgId === undefined ? <th scope="col">Organization</th> : null}
                <th scope="col">Key</th>
                <th scope="col">Model</th>
                <th scope="col">Endpoint</th>
                <th scope="col">Status</th>
                <th scope="col">Tokens</th>
                <th scope="col" class="number">Cost</th>
                <th scope="col" class="number">Duration</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id} data-request-id={row.id} class={row.id === open ? 'selected' : undefined} aria-current={row.id === open ? 'true' : undefined} onClick={() => setOpen(row.id)}>
                  <td>{formatTime(row.reserved_at)}</td>
                  <td>
                    {/* the row opens on a click anywhere; this button is the way in for the keyboard */}
                    <button type="button" class="link" aria-label={`Events of ${row.id}`} onClick={() => setOpen(row.id)}>
                      <code>{row.id}</code>
                    </button>
                  </td>
                  {orgId === undefined ? (
                    <td>
                      <a href={href({ page: 'organization', orgId: row.organization_id, tab: 'overview' })} onClick={(event) => event.stopPropagation()}>
                        {row.organization_name ?? row.organization_id}
                      </a>
                    </td>
                  ) : null}
                  <td title={row.key_id}>{row.key_name ?? row.key_id}</td>
                  <td>{row.model}</td>
                  <td>{row.endpoint ?? '—'}</td>
                  <td>
                    <span class={`status ${row.error ? 'failed' : row.status}`}>{formatOutcome(row)}</span>
                  </td>
                  <td class="tokens">{formatUsage(row.usage)}</td>
                  <td class="number">{row.status === 'open' ? `${formatUsd(row.reserved_usd)} held` : formatUsdOrNone(row.cost_usd)}</td>
                  <td class="number">{formatDuration(row.duration_ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager
        label="Requests"
        pageNumber={cursor.pageNumber}
        hasPrevious={cursor.pageNumber > 1}
        hasNext={list.data?.has_more ?? false}
        onPrevious={cursor.previous}
        onNext={() => cursor.next(list.data?.last_id ?? null)}
      />
    </>
  );
}
