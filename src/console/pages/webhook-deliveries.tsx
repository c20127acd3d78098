import type { PageRecord, WebhookDeliveryRecord } from '../../admin-records.js';
import { admin, get } from '../api.js';
import { ErrorNotice, Loading, Pager, PAGE_SIZE, useAction, useCursor, useLoad } from '../ui.js';

/** What a delivery is about, from its body, in a few words. */
function about(delivery: WebhookDeliveryRecord): string {
  const data = (delivery.payload as { data?: Record<string, unknown> }).data ?? {};
  if (delivery.type === 'budget.threshold_crossed') return `${data.threshold_percent} % of the ${data.period}'s limit of ${data.scope} ${data.scope_id}: ${data.spent_usd} of ${data.limit_usd} USD`;
  if (delivery.type === 'balance.low') return `balance ${data.balance_usd} USD, below ${data.threshold_usd}`;
  return 'a sample';
}

/** The log of the organization's webhook deliveries, newest first: each one's status, attempts and last error, and a retry for a failed one. */
export function WebhookDeliveries({ orgId, round }: { orgId: string; round: number }) {
  const cursor = useCursor();
  const org = encodeURIComponent(orgId);
  const list = useLoad(() => get<PageRecord<WebhookDeliveryRecord>>(`/organizations/${org}/webhook-deliveries`, { limit: PAGE_SIZE, after: cursor.after }), [orgId, cursor.after, round]);
  const retry = useAction();
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">Deliveries</h2>
      <button type="button" onClick={list.reload}>
        Refresh
      </button>
      <ErrorNotice error={list.error} action="load the deliveries" />
      <ErrorNotice error={retry.error} action="retry the delivery" />
      <Loading loaded={list} />
      {list.data && list.data.data.length === 0 && cursor.pageNumber === 1 ? <p>No alert yet.</p> : null}
      {list.data && list.data.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Decided</th>
              <th scope="col">Type</th>
              <th scope="col">About</th>
              <th scope="col">Status</th>
              <th scope="col" class="number">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">Next attempt</th>
              <th scope="col">Id</th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((delivery) => (
              <tr key={delivery.id} data-delivery-id={delivery.id}>
                <td>{delivery.created_at}</td>
                <td>{delivery.type}</td>
                <td>{about(delivery)}</td>
                <td>
                  <span class={`status ${delivery.status}`}>{delivery.status}</span>
                  {delivery.status === 'failed' ? (
                    <button type="button" disabled={retry.busy} onClick={() => void retry.run(async () => (await admin('POST', `/organizations/${org}/webhook-deliveries/${delivery.id}/retry`), list.reload()))}>
                      Retry
                    </button>
                  ) : null}
                </td>
                <td class="number">{delivery.attempts}</td>
                <td>{delivery.last_error ?? (delivery.last_status === null ? '—' : `HTTP ${delivery.last_status}`)}</td>
                <td>{delivery.next_attempt_at ?? '—'}</td>
                <td>
                  <code>{delivery.id}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager label="Deliveries" pageNumber={cursor.pageNumber} hasPrevious={cursor.pageNumber > 1} hasNext={list.data?.has_more ?? false} onPrevious={cursor.previous} onNext={() => cursor.next(list.data?.last_id ?? null)} />
    </section>
  );
}
