import { useEffect, useRef } from 'preact/hooks';
import type { RequestDetailRecord, RequestEventRecord } from '../../admin-records.js';
import { get } from '../api.js';
import { formatUsd, formatUsdOrNone } from '../money.js';
import { formatDuration, formatOutcome, formatTime, formatUsage } from '../request-format.js';
import { ErrorNotice, Loading, useLoad } from '../ui.js';

/**
 * One request's audit trail: the request as the log holds it and its events from the event log, the
 * reserve and how it was closed, with their amounts. Focus moves here when it opens, for keyboard users.
 */
export function RequestEvents({ requestId, onClose }: { requestId: string; onClose: () => void }) {
  const detail = useLoad(() => get<RequestDetailRecord>(`/requests/${encodeURIComponent(requestId)}`), [requestId]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [requestId]);
  const request = detail.data;
  return (
    <section class="panel" aria-labelledby="request-events" data-testid="request-events">
      <h2 id="request-events" tabIndex={-1} ref={heading}>
        Request <code>{requestId}</code>
      </h2>
      <button type="button" onClick={onClose}>
        Close
      </button>
      <ErrorNotice error={detail.error} action="load the request's events" />
      <Loading loaded={detail} />
      {request ? (
        <>
          <dl class="facts">
            <Fact name="Organization" value={request.organization_name ?? request.organization_id} />
            <Fact name="Key" value={request.key_name ? `${request.key_name} (${request.key_id})` : request.key_id} />
            <Fact name="Model" value={`${request.model} (${request.type})`} />
            <Fact name="Endpoint" value={request.endpoint ?? '—'} />
            <Fact name="Status" value={formatOutcome(request)} />
            <Fact name="Reserved" value={formatUsd(request.reserved_usd)} />
            <Fact name="Cost" value={formatUsdOrNone(request.cost_usd)} />
            <Fact name="Duration" value={formatDuration(request.duration_ms)} />
          </dl>
          <p>Usage: {formatUsage(request.usage, true)}</p>
          <table>
            <caption>Events of the request in the log, in the order they were written</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Stream and revision</th>
                <th scope="col">Occurred (UTC)</th>
                <th scope="col">Amounts</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {request.events.map((event) => (
                <tr key={event.revision} data-event={event.type}>
                  <td>{event.type}</td>
                  <td>
                    <code>
                      {event.stream}@{event.revision}
                    </code>
                  </td>
                  <td>{formatTime(event.occurred_at)}</td>
                  <td>{amountsOf(event)}</td>
                  <td>{detailsOf(event)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {request.events.length === 0 ? <p>The event log holds no event of this request at the revisions the request log names.</p> : null}
        </>
      ) : null}
    </section>
  );
}

function Fact({ name, value }: { name: string; value: string }) {
  return (
    <div>
      <dt>{name}</dt>
      <dd>{value}</dd>
    </div>
  );
}

function amountsOf(event: RequestEventRecord): string {
  switch (event.type) {
    case 'FundsReserved':
      return `reserved ${formatUsd(event.amount_usd ?? '0')}`;
    case 'ReservationSettled':
      return `charged ${formatUsd(event.cost_usd ?? '0')}, overrun ${formatUsd(event.overrun_usd ?? '0')}`;
    case 'ReservationCutOff':
      return `charged ${formatUsd(event.cost_usd ?? '0')}`;
    case 'ReservationReleased':
    case 'ReservationExpired':
      return 'nothing charged';
  }
}

function detailsOf(event: RequestEventRecord): string {
  switch (event.type) {
    case 'FundsReserved':
      return `expires ${formatTime(event.deadline ?? null)}; caused by ${event.caused_by}`;
    case 'ReservationSettled':
    case 'ReservationCutOff':
      return `usage ${formatUsage(event.usage, true)}`;
    case 'ReservationReleased':
      return `reason: ${event.reason ?? '—'}`;
    case 'ReservationExpired':
      return 'the deadline passed with the request still open';
  }
}
