import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The Postgres event store (src/eventstore/postgres). One table of events, one row per stream holding its
 * last revision, and `append_events`, which performs a whole append in one statement (one round trip).
 *
 * Global order is `(transaction_id, global_sequence)`. Sequence numbers are handed out before commit, so a
 * reader that only remembered "the last sequence I saw" could skip an event whose transaction commits late;
 * readers instead see only rows whose transaction is older than every transaction still running
 * (`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`), and everything below that line is final.
 * That only orders a stream correctly if the append is the first write of its transaction, because the xid
 * is assigned at the first write: `append_events` runs as its own statement and writes nothing before it.
 *
 * `append_events` does not NOTIFY: Postgres serializes the commits of notifying transactions (one WAL flush
 * each, no group commit), which cost a third of the throughput with many accounts appending at once. The
 * store notifies after the commit instead (PostgresEventStore).
 * See /work/shared/reference/event-sourcing.md section 3 (Emmett, eugene-khyst, Marten).
 */
const statements = [
  sql`create table event_streams (
    stream_id text primary key,
    revision bigint not null check (revision >= 0)
  )`,
  sql`create table events (
    global_sequence bigint generated always as identity,
    transaction_id xid8 not null default pg_current_xact_id(),
    stream_id text not null,
    revision bigint not null check (revision >= 0),
    event_id uuid not null,
    type text not null,
    data jsonb not null,
    metadata jsonb not null,
    recorded_at timestamptz not null default now(),
    primary key (stream_id, revision),
    constraint events_stream_event_id_key unique (stream_id, event_id)
  )`,
  sql`create index events_global_order on events (transaction_id, global_sequence)`,
  // Expected revision: 'any' | 'no_stream' | 'stream_exists' | a decimal revision. Events: a JSON array of
  // {id, type, data, metadata}. Outcome 'appended' | 'idempotent' | 'conflict'; for a conflict,
  // last_revision is the stream's actual revision (null: no stream) and nothing was written.
  //
  // Every expected-revision kind is enforced by a write whose row count is checked, never by a read
  // followed by a write (a read cannot see a racing appender that has not committed yet):
  //   no_stream      insert … on conflict do nothing (waits for a racing creator, then inserts nothing)
  //   <revision>     update … where revision = <revision> (re-checked on the new row after a racing commit)
  //   stream_exists  update … set revision = revision + n (row lock: racing appenders queue up)
  //   any            insert … on conflict do update (the same row lock)
  // Idempotency: if every event id of the batch is already in the stream, at consecutive revisions in batch
  // order, and where the expected revision says they go, the original result is returned without writing.
  // Any other overlap (some ids present, or present elsewhere) is a conflict. The check is repeated after a
  // failed write, whose wait made the racing append visible: a retried append that raced itself is idempotent.
  sql`create function append_events(p_stream_id text, p_expected text, p_events jsonb)
    returns table (outcome text, last_revision bigint, last_transaction_id text, last_sequence bigint)
    language plpgsql volatile as $fn$
  declare
    v_count bigint := jsonb_array_length(p_events);
    v_last bigint;
    v_sequence bigint;
  begin
    if v_count = 0 then
      raise exception 'append_events: no events' using errcode = '22023';
    end if;
    select r.outcome, r.last_revision, r.last_transaction_id, r.last_sequence
      into outcome, last_revision, last_transaction_id, last_sequence
      from append_events_replay(p_stream_id, p_expected, p_events) r;
    if outcome is not null then
      return next;
      return;
    end if;

    if p_expected = 'no_stream' then
      insert into event_streams (stream_id, revision) values (p_stream_id, v_count - 1) on conflict do nothing;
      if found then v_last := v_count - 1; end if;
    elsif p_expected = 'any' then
      insert into event_streams as s (stream_id, revision) values (p_stream_id, v_count - 1)
        on conflict (stream_id) do update set revision = s.revision + v_count
        returning s.revision into v_last;
    elsif p_expected = 'stream_exists' then
      update event_streams set revision = revision + v_count where stream_id = p_stream_id
        returning revision into v_last;
    else
      update event_streams set revision = revision + v_count
        where stream_id = p_stream_id and revision = p_expected::bigint
        returning revision into v_last;
    end if;

    if v_last is null then
      select r.outcome, r.last_revision, r.last_transaction_id, r.last_sequence
        into outcome, last_revision, last_transaction_id, last_sequence
        from append_events_replay(p_stream_id, p_expected, p_events) r;
      if outcome is null then
        outcome := 'conflict';
        select s.revision into last_revision from event_streams s where s.stream_id = p_stream_id;
      end if;
      return next;
      return;
    end if;

    with inserted as (
      insert into events (stream_id, revision, event_id, type, data, metadata)
      select p_stream_id, v_last - v_count + b.ordinality, (b.doc ->> 'id')::uuid, b.doc ->> 'type', b.doc -> 'data', b.doc -> 'metadata'
        from jsonb_array_elements(p_events) with ordinality as b (doc, ordinality)
      returning global_sequence
    )
    select max(global_sequence) into v_sequence from inserted;
    outcome := 'appended';
    last_revision := v_last;
    last_transaction_id := pg_current_xact_id()::text;
    last_sequence := v_sequence;
    return next;
  end
  $fn$`,
  // The idempotency check of append_events: 'idempotent' (with the original result) when the whole batch
  // is already in the stream where it was asked to go, 'conflict' when it overlaps otherwise, null when
  // none of its ids is in the stream.
  sql`create function append_events_replay(p_stream_id text, p_expected text, p_events jsonb)
    returns table (outcome text, last_revision bigint, last_transaction_id text, last_sequence bigint)
    language plpgsql volatile as $fn$
  declare
    v_found bigint;
    v_offsets bigint;
    v_first bigint;
    v_wanted bigint;
  begin
    select count(*), count(distinct e.revision - b.ordinality), min(e.revision),
           (array_agg(e.revision order by b.ordinality desc))[1],
           (array_agg(e.transaction_id::text order by b.ordinality desc))[1],
           (array_agg(e.global_sequence order by b.ordinality desc))[1]
      into v_found, v_offsets, v_first, last_revision, last_transaction_id, last_sequence
      from jsonb_array_elements(p_events) with ordinality as b (doc, ordinality)
      -- One index probe per event of the batch. As a plain join, the planner (with statistics from when
      -- the stream was short) hashed the whole stream on every append, which grew with the account's history.
      cross join lateral (
        select x.revision, x.transaction_id, x.global_sequence from events x
         where x.stream_id = p_stream_id and x.event_id = (b.doc ->> 'id')::uuid
         limit 1
      ) e;
    if v_found = 0 then
      return;
    end if;
    -- The first revision the batch had to land on; stays null (any place will do) for 'any' and 'stream_exists'.
    if p_expected = 'no_stream' then
      v_wanted := 0;
    elsif p_expected not in ('any', 'stream_exists') then
      v_wanted := p_expected::bigint + 1;
    end if;
    if v_found = jsonb_array_length(p_events) and v_offsets = 1 and (v_wanted is null or v_first = v_wanted) then
      outcome := 'idempotent';
    else
      outcome := 'conflict';
      last_transaction_id := null;
      last_sequence := null;
      select s.revision into last_revision from event_streams s where s.stream_id = p_stream_id;
    end if;
    return next;
  end
  $fn$`,
];

export const eventStoreMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const statement of statements) await statement.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop function append_events(text, text, jsonb)`.execute(db);
    await sql`drop function append_events_replay(text, text, jsonb)`.execute(db);
    await sql`drop table events`.execute(db);
    await sql`drop table event_streams`.execute(db);
  },
};
