import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Appends take their stream's write lock: `append_events_locked` holds a transaction-level advisory lock
 * on the stream id while it runs `append_events` (0001), and the store appends through it. A writer that
 * keeps losing the optimistic race for a busy stream (two gateway instances deciding on one hot account)
 * can then take the same lock around read → decide → append (`PostgresEventStore.withStreamLock`): the
 * other appends to that stream wait for it, so it cannot lose again, and nobody starves.
 *
 * An advisory lock assigns no transaction id, so the append is still the first write of its transaction
 * and the global order of 0001 holds. Streams whose ids hash alike merely share a lock.
 */
export const streamWriteLocksMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create function append_events_locked(p_stream_id text, p_expected text, p_events jsonb)
      returns table (outcome text, last_revision bigint, last_transaction_id text, last_sequence bigint)
      language plpgsql volatile as $fn$
    begin
      perform pg_advisory_xact_lock(hashtextextended(p_stream_id, 0));
      return query select * from append_events(p_stream_id, p_expected, p_events);
    end
    $fn$`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop function append_events_locked(text, text, jsonb)`.execute(db);
  },
};
