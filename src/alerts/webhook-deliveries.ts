import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

/**
 * The deliveries of the alert webhooks (table `webhook_deliveries`, migration 0104): what is to be sent,
 * and how each attempt went. The alerts projection writes an alert's delivery in the transaction of its
 * checkpoint; the test endpoint writes a sample; the dispatcher (webhook-dispatcher.ts) claims the due ones
 * and records each attempt. Times are the gateway's clock, passed in.
 */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  readonly delivery_id: string;
  readonly org_id: string;
  readonly event_type: string;
  readonly body: string;
  readonly created_at: Date;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly next_attempt_at: Date | null;
  readonly last_attempt_at: Date | null;
  readonly last_status: number | null;
  readonly last_error: string | null;
  readonly delivered_at: Date | null;
}

export interface NewDelivery {
  readonly deliveryId: string;
  readonly orgId: string;
  readonly eventType: string;
  readonly body: string;
  /** When the alert was decided: the charge's time; the first attempt is due from then. */
  readonly createdAt: string;
}

/** What one attempt came to: a 2xx, or the status (if any) and why not. */
export type AttemptResult = { readonly ok: true; readonly status: number } | { readonly ok: false; readonly status: number | null; readonly error: string };

/**
 * After a failed attempt n (1-based), the next comes this long after it; after the last, the delivery is
 * `failed` (a retry from the admin API queues it again). Nine attempts over about 21 hours.
 */
export const RETRY_DELAYS_MS: readonly number[] = [2_000, 10_000, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Inserts deliveries; one already there (the same id) is left as it is. */
export async function insertDeliveries(db: Kysely<object>, deliveries: readonly NewDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  const rows = deliveries.map((d) => sql`(${d.deliveryId}::uuid, ${d.orgId}, ${d.eventType}, ${d.body}, ${d.createdAt}::timestamptz, 'pending', ${d.createdAt}::timestamptz)`);
  await sql`insert into public.webhook_deliveries (delivery_id, org_id, event_type, body, created_at, status, next_attempt_at)
    values ${sql.join(rows)} on conflict (delivery_id) do nothing`.execute(db);
}

/**
 * Records that the alerts of an account stream's event at `revision` are being decided, unless they were
 * already (by this generation of the alerts projection or an earlier one): only the first decision of an
 * event may queue deliveries, so a rebuild never sends an alert again.
 */
export async function firstDecision(db: Kysely<object>, streamId: string, revision: bigint): Promise<boolean> {
  const { rows } = await sql<{ revision: string }>`insert into public.budget_alert_decisions as decided (stream_id, revision)
    values (${streamId}, ${revision}) on conflict (stream_id) do update set revision = excluded.revision
    where decided.revision < excluded.revision returning revision`.execute(db);
  return rows.length > 0;
}

/** A sample alert for the organization's webhook, due now (the test endpoint). */
export async function queueTestDelivery(db: Kysely<object>, orgId: string, body: string, now: Date): Promise<string> {
  const deliveryId = randomUUID();
  await insertDeliveries(db, [{ deliveryId, orgId, eventType: 'webhook.test', body, createdAt: now.toISOString() }]);
  return deliveryId;
}

/**
 * Takes up to `limit` due deliveries for `leaseMs`: another dispatcher (a second instance's tick running
 * late) skips them until the lease passes, so a delivery is attempted by one at a time; a dispatcher that
 * dies mid-attempt leaves it to be taken again when the lease has passed (at least once).
 */
export async function claimDueDeliveries(db: Kysely<object>, now: Date, limit: number, leaseMs: number): Promise<DeliveryRow[]> {
  const { rows } = await sql<DeliveryRow>`update webhook_deliveries set lease_until = ${new Date(now.getTime() + leaseMs)}
    where delivery_id in (
      select delivery_id from webhook_deliveries
      where status = 'pending' and next_attempt_at <= ${now} and (lease_until is null or lease_until <= ${now})
      order by next_attempt_at limit ${limit} for update skip locked)
    returning *`.execute(db);
  return rows;
}

/** Records an attempt of a claimed delivery: delivered, due again after its back-off, or failed for good. */
export async function recordAttempt(db: Kysely<object>, delivery: DeliveryRow, result: AttemptResult, now: Date): Promise<void> {
  const attempts = delivery.attempts + 1;
  const status: DeliveryStatus = result.ok ? 'delivered' : attempts >= MAX_ATTEMPTS ? 'failed' : 'pending';
  const nextAttemptAt = status === 'pending' ? new Date(now.getTime() + RETRY_DELAYS_MS[attempts - 1]!) : null;
  await sql`update webhook_deliveries set status = ${status}, attempts = ${attempts}, lease_until = null, last_attempt_at = ${now},
      last_status = ${result.status}, last_error = ${result.ok ? null : result.error}, next_attempt_at = ${nextAttemptAt},
      delivered_at = ${result.ok ? now : null}
    where delivery_id = ${delivery.delivery_id}`.execute(db);
}

/** An organization's deliveries, newest first, from after the delivery `after` (keyset paging). */
export async function listDeliveries(db: Kysely<object>, orgId: string, limit: number, after: string | null): Promise<DeliveryRow[]> {
  const { rows } = await sql<DeliveryRow>`select * from webhook_deliveries
    where org_id = ${orgId} and (${after}::uuid is null
      or (created_at, delivery_id) < (select created_at, delivery_id from webhook_deliveries where delivery_id = ${after}::uuid))
    order by created_at desc, delivery_id desc limit ${limit}`.execute(db);
  return rows;
}

/** A delivery, when it is the organization's. */
export async function findDelivery(db: Kysely<object>, orgId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  const { rows } = await sql<DeliveryRow>`select * from webhook_deliveries where org_id = ${orgId} and delivery_id = ${deliveryId}::uuid`.execute(db);
  return rows[0];
}

/** Queues a failed delivery again, due now, with its attempts counted afresh. */
export async function retryDelivery(db: Kysely<object>, deliveryId: string, now: Date): Promise<void> {
  await sql`update webhook_deliveries set status = 'pending', attempts = 0, next_attempt_at = ${now}, lease_until = null
    where delivery_id = ${deliveryId}::uuid and status = 'failed'`.execute(db);
}
