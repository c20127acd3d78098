import { sql, type Kysely, type Migration } from 'kysely';

/** Snapshots of account states (src/ledger/account-snapshot.ts): a cache of the account streams, never the truth. */
export const accountSnapshotsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create table account_snapshots (
      org_id text primary key,
      revision bigint not null,
      state jsonb not null,
      taken_at timestamptz not null
    )`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop table account_snapshots`.execute(db);
  },
};
