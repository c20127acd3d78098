import { sql, type Kysely } from 'kysely';

/** Who owns an account: this instance, or another one reachable at `address` until about `validForMs` from now. */
export type AccountOwner = { readonly self: true } | { readonly self: false; readonly instanceId: string; readonly address: string; readonly validForMs: number };

/**
 * Leases on accounts in Postgres (table `account_owners`, migration 0102). The first instance to claim
 * an unowned or lapsed account owns it for `ttlMs`, and keeps it by renewing all its leases in one
 * statement every third of that. Expiry is judged by the database's clock alone.
 */
export class AccountLeases {
  constructor(
    private readonly db: Kysely<object>,
    readonly instanceId: string,
    readonly address: string,
    readonly ttlMs: number,
  ) {}

  /** Takes the account's lease when no live instance holds it; else says who does. */
  async claim(orgId: string): Promise<AccountOwner> {
    const { rows } = await sql<{ instance_id: string; address: string; valid_ms: number }>`
      with claimed as (
        insert into account_owners as owners (org_id, instance_id, address, expires_at)
        values (${orgId}, ${this.instanceId}, ${this.address}, now() + ${this.ttlMs} * interval '1 millisecond')
        on conflict (org_id) do update
          set instance_id = excluded.instance_id, address = excluded.address, expires_at = excluded.expires_at
          where owners.expires_at < now() or owners.instance_id = excluded.instance_id
        returning instance_id, address, expires_at
      )
      select instance_id, address, floor(extract(epoch from expires_at - now()) * 1000)::float8 as valid_ms from claimed
      union all
      select instance_id, address, floor(extract(epoch from expires_at - now()) * 1000)::float8 from account_owners
      where org_id = ${orgId} and not exists (select 1 from claimed)`.execute(this.db);
    const row = rows[0];
    // No row at all: the lease was deleted between the two reads of the statement; the next claim takes it.
    if (!row) return { self: false, instanceId: '', address: '', validForMs: 0 };
    if (row.instance_id === this.instanceId) return { self: true };
    return { self: false, instanceId: row.instance_id, address: row.address, validForMs: Math.max(0, row.valid_ms) };
  }

  /** Extends every lease this instance holds; returns the accounts it still owns. */
  async renew(): Promise<Set<string>> {
    const { rows } = await sql<{ org_id: string }>`
      update account_owners set expires_at = now() + ${this.ttlMs} * interval '1 millisecond'
      where instance_id = ${this.instanceId} and expires_at >= now()
      returning org_id`.execute(this.db);
    return new Set(rows.map((row) => row.org_id));
  }

  /** Gives up every lease (a clean shutdown): the other instances claim the accounts at once. */
  async releaseAll(): Promise<void> {
    await sql`delete from account_owners where instance_id = ${this.instanceId}`.execute(this.db);
  }
}
