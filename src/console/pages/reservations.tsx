import type { PageRecord, ReservationRecord } from '../../admin-records.js';
import { get } from '../api.js';
import { formatUsd } from '../money.js';
import { ErrorNotice, Loading, Pager, PAGE_SIZE, useCursor, useLoad } from '../ui.js';

/** Money held for requests still running (or abandoned: the sweeper releases them at their deadline). */
export function ReservationsTab({ orgId }: { orgId: string }) {
  const cursor = useCursor();
  const list = useLoad(() => get<PageRecord<ReservationRecord>>(`/organizations/${encodeURIComponent(orgId)}/reservations`, { limit: PAGE_SIZE, after: cursor.after }), [orgId, cursor.after]);
  return (
    <section aria-labelledby="reservations">
      <h2 id="reservations">Open reservations</h2>
      <button type="button" onClick={list.reload}>
        Refresh
      </button>
      <ErrorNotice error={list.error} action="load the reservations" />
      <Loading loaded={list} />
      {list.data && list.data.data.length === 0 && cursor.pageNumber === 1 ? <p>No open reservation: no request of this organization is running.</p> : null}
      {list.data && list.data.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Request</th>
              <th scope="col">Key</th>
              <th scope="col">Model</th>
              <th scope="col">Type</th>
              <th scope="col" class="number">Reserved</th>
              <th scope="col">Since</th>
              <th scope="col">Released by</th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((reservation) => (
              <tr key={reservation.id}>
                <td>
                  <code>{reservation.id}</code>
                </td>
                <td>
                  <code>{reservation.key_id}</code>
                </td>
                <td>{reservation.model}</td>
                <td>{reservation.type}</td>
                <td class="number">{formatUsd(reservation.reserved_usd)}</td>
                <td>{reservation.reserved_at}</td>
                <td>{reservation.expires_at}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager label="Reservations" pageNumber={cursor.pageNumber} hasPrevious={cursor.pageNumber > 1} hasNext={list.data?.has_more ?? false} onPrevious={cursor.previous} onNext={() => cursor.next(list.data?.last_id ?? null)} />
    </section>
  );
}
