import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Leases on accounts (src/ledger/owners/account-leases.ts): which gateway instance decides an
 * organization's account commands, and where the others reach it. A lease is a routing hint, never a
 * lock: the owner still appends with the stream's expected revision, so two instances that both believe
 * they own an account (one paused past its lease) stay correct, merely slower. Times are the database's
 * own clock, so instances need not agree on theirs.
 */
export const accountOwnersMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create table account_owners (
      org_id text primary key,
      instance_id text not null,
      address text not null,
      expires_at timestamptz not null
    )`.execute(db);
    await sql`create index account_owners_instance on account_owners (instance_id)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop table account_owners`.execute(db);
  },
};
