import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The budget alerts' deliveries (src/alerts): outside every read model's schema, so a rebuild of the
 * alerts projection never drops what was already sent.
 *
 * - `webhook_deliveries`: one row per webhook to send, written by the projection in the transaction of its
 *   checkpoint (so a decided alert is never lost) and by the test endpoint; the dispatcher sends the due
 *   ones and records each attempt (status, attempts, last HTTP status and error, next attempt). The id is
 *   the `webhook-id`, the same on every retry.
 * - `budget_alert_decisions`: per account stream, the newest revision whose alerts were decided. A
 *   generation replaying events at or below it (a rebuild) decides no delivery for them: they were decided
 *   once, whatever a newer version of the projection would say about them.
 */
export const webhookDeliveriesMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create table webhook_deliveries (
      delivery_id uuid primary key,
      org_id text not null,
      event_type text not null,
      body text not null,
      created_at timestamptz not null,
      status text not null,
      attempts integer not null default 0,
      next_attempt_at timestamptz,
      lease_until timestamptz,
      last_attempt_at timestamptz,
      last_status integer,
      last_error text,
      delivered_at timestamptz
    )`.execute(db);
    await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending'`.execute(db);
    await sql`create index webhook_deliveries_by_org on webhook_deliveries (org_id, created_at desc, delivery_id desc)`.execute(db);
    await sql`create table budget_alert_decisions (stream_id text primary key, revision bigint not null)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop table budget_alert_decisions`.execute(db);
    await sql`drop table webhook_deliveries`.execute(db);
  },
};
