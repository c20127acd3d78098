import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The running gateway instances and their heartbeats (src/ledger/instances/gateway-instances.ts). A row
 * whose `expires_at` has passed is an instance that died (or was paused, or cut off from the database,
 * for longer than its lease): the others then close the reservations it held. Times are the database's
 * own clock, so instances need not agree on theirs.
 */
export const gatewayInstancesMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create table gateway_instances (
      instance_id text primary key,
      started_at timestamptz not null,
      expires_at timestamptz not null
    )`.execute(db);
    await sql`create index gateway_instances_by_expiry on gateway_instances (expires_at)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop table gateway_instances`.execute(db);
  },
};
