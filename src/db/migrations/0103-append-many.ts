import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Several streams' appends in one statement, one transaction, one commit: `append_events_many` takes a JSON
 * array of `{stream, expected, events}` and answers one row per entry, in order (`ordinal` 1, 2, …), each
 * as `append_events` (0001) would: 'appended', 'idempotent' or 'conflict'. A conflict on one stream writes
 * nothing to that stream and does not stop the others; each entry's expected revision is checked as alone.
 *
 * The global order (0001) needs every append to be its transaction's first write: the transaction id, which
 * orders the log, is assigned at the first write. With several streams in one transaction, the first
 * stream's write assigns it, and a competing append to a later stream must not commit in between with a
 * newer id. So every stream's write lock (0101's advisory lock, which every append takes and which assigns
 * no transaction id) is taken before the first write, in the order of the lock keys, so that two such
 * statements cannot deadlock. Entries for the same stream run in array order.
 */
export const appendManyMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create function append_events_many(p_appends jsonb)
      returns table (ordinal bigint, outcome text, last_revision bigint, last_transaction_id text, last_sequence bigint)
      language plpgsql volatile as $fn$
    declare
      v_key bigint;
      v_entry jsonb;
      v_ordinal bigint;
    begin
      for v_key in
        select distinct hashtextextended(a ->> 'stream', 0) as key from jsonb_array_elements(p_appends) a order by key
      loop
        perform pg_advisory_xact_lock(v_key);
      end loop;
      for v_entry, v_ordinal in select a, n from jsonb_array_elements(p_appends) with ordinality as e (a, n) loop
        ordinal := v_ordinal;
        select r.outcome, r.last_revision, r.last_transaction_id, r.last_sequence
          into outcome, last_revision, last_transaction_id, last_sequence
          from append_events(v_entry ->> 'stream', v_entry ->> 'expected', v_entry -> 'events') r;
        return next;
      end loop;
    end
    $fn$`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop function append_events_many(jsonb)`.execute(db);
  },
};
