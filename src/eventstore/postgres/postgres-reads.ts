import { sql, type Kysely, type RawBuilder } from 'kysely';
import { parseStoredEnvelope } from '../event-envelope.js';
import type { LagSample, ReadStreamOptions, RecordedEvent } from '../event-store.js';
import { encodePostgresPosition, type PostgresPosition } from './postgres-position.js';

/** The queries that read the events table (its shape: src/db/migrations/0001-event-store.ts). */
type Executor = Kysely<object>;

/**
 * An event as read. The position's two numbers come as text, as the position spells them, and the time as
 * epoch milliseconds (floored, as a Date keeps them): parsing a bigint only to print it again, and a
 * timestamp's text, cost more per event than the rest of the row.
 */
interface EventRow {
  global_sequence: string;
  transaction_id: string;
  stream_id: string;
  revision: bigint;
  event_id: string;
  type: string;
  data: unknown;
  metadata: unknown;
  recorded_ms: number;
}

/** The time an event was recorded, in epoch milliseconds (exact: `extract` gives a numeric). */
const recordedMs = (alias: 'e' | 'w') => sql`floor(extract(epoch from ${sql.ref(`${alias}.recorded_at`)}) * 1000)::float8 as recorded_ms`;

const EVENT_COLUMNS = sql`e.global_sequence::text as global_sequence, e.transaction_id::text as transaction_id, e.stream_id, e.revision,
  e.event_id::text as event_id, e.type, e.data, e.metadata, ${recordedMs('e')}`;

function toRecordedEvent(row: EventRow): RecordedEvent {
  const { id, type, data, metadata } = parseStoredEnvelope(
    { id: row.event_id, type: row.type, data: row.data, metadata: row.metadata },
    () => `${row.stream_id}@${row.revision}`,
  );
  return {
    id,
    type,
    data,
    metadata,
    streamId: row.stream_id,
    revision: row.revision,
    position: encodePostgresPosition(row.transaction_id, row.global_sequence),
    recordedAt: new Date(row.recorded_ms),
  };
}

export async function readStreamEvents(db: Executor, streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
  const direction = options.direction ?? 'forwards';
  const from = options.fromRevision ?? (direction === 'forwards' ? 'start' : 'end');
  const limit = options.maxCount ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isInteger(limit) || limit < 0) throw new TypeError(`maxCount ${limit} is not a count`);
  // Reading forwards from the end, or backwards from before the start, reads nothing (as on EventStoreDB).
  if (limit === 0 || (direction === 'forwards' && from === 'end') || (direction === 'backwards' && from === 'start')) return [];
  let bound: RawBuilder<unknown> = sql`true`;
  if (typeof from === 'bigint') bound = direction === 'forwards' ? sql`e.revision >= ${String(from)}::bigint` : sql`e.revision <= ${String(from)}::bigint`;
  // A stream needs no snapshot gate: its appends serialise on its event_streams row, so its revisions commit in order.
  const { rows } = await sql<EventRow>`select ${EVENT_COLUMNS} from events e
    where e.stream_id = ${streamId} and ${bound}
    order by e.revision ${direction === 'forwards' ? sql`asc` : sql`desc`}
    limit ${String(limit)}::bigint`.execute(db);
  return rows.map(toRecordedEvent);
}

export interface GlobalPage {
  /** The events of the page that match the stream prefixes (all of them without prefixes). */
  readonly events: RecordedEvent[];
  /** Rows the page went through (matching or not); fewer than asked means it reached the horizon. */
  readonly scanned: number;
  /** The last row the page went through: where the next page starts, past events that did not match. */
  readonly lastScanned: PostgresPosition | undefined;
  /** Every event whose transaction id is below this has been considered by the read (the snapshot's xmin). */
  readonly horizon: bigint;
  /** Committed events exist at or beyond the horizon: they wait for an older transaction to finish. */
  readonly pendingBeyondHorizon: boolean;
}

type PageRow = { [K in keyof EventRow]: EventRow[K] | null } & { horizon: string; pending: boolean | null; matches: boolean | null; scanned: string | null };

/**
 * The next events of the global log after `after`, in (transaction id, sequence) order, limited to
 * transactions older than every transaction still running. Rows of a transaction below that line can no
 * longer appear, so a reader that resumes from its last position never skips an event committed late.
 *
 * The page walks the global-order index and only then applies the stream prefixes: a filtered reader far
 * behind the head still costs one index range of `limit` rows per page, and moves past the streams it does
 * not want. Of the rows it walked past, only the last one comes back (as the position to resume from, with
 * the count of rows walked): the access readers follow a few key and organization events in a log of two
 * account events a request, and sending and parsing every skipped row was most of their cost.
 */
export async function readGlobalPage(db: Executor, after: PostgresPosition, limit: number, streamPrefixes?: readonly string[]): Promise<GlobalPage> {
  const filtered = streamPrefixes !== undefined && streamPrefixes.length > 0;
  const matches = filtered
    ? sql`(${sql.join(
        streamPrefixes.map((prefix) => sql`starts_with(w.stream_id, ${prefix})`),
        sql` or `,
      )})`
    : sql`true`;
  const walk = sql`select e.* from events e
         where e.transaction_id < h.horizon
           and (e.transaction_id, e.global_sequence) > (${after.transactionId.toString()}::text::xid8, ${after.sequence.toString()}::bigint)
         order by e.transaction_id, e.global_sequence
         limit ${String(limit)}::bigint`;
  // Filtered: number the walked rows from the end (after the limit, so the window sees only this page) and
  // keep the matching ones and the last.
  const page = filtered
    ? sql`select w.*, w.walked::text as scanned from (
          select p.*, count(*) over () as walked,
                 row_number() over (order by p.transaction_id desc, p.global_sequence desc) as from_end
            from (${walk}) p
        ) w where w.from_end = 1 or ${matches}`
    : sql`select w.*, null::text as scanned from (${walk}) w`;
  const { rows } = await sql<PageRow>`
    select h.horizon::text as horizon,
           (select p.transaction_id from events p order by p.transaction_id desc limit 1) >= h.horizon as pending,
           ${matches} as matches, w.scanned,
           w.global_sequence::text as global_sequence, w.transaction_id::text as transaction_id, w.stream_id, w.revision,
           w.event_id::text as event_id, w.type,
           case when ${matches} then w.data end as data,
           case when ${matches} then w.metadata end as metadata,
           ${recordedMs('w')}
      from (select pg_snapshot_xmin(pg_current_snapshot()) as horizon) h
      left join lateral (${page}) w on true
     order by w.transaction_id, w.global_sequence`.execute(db);
  const first = rows[0];
  if (!first) throw new Error('readGlobalPage: the horizon row is missing');
  const events: RecordedEvent[] = [];
  let returned = 0;
  let last: PageRow | undefined;
  for (const row of rows) {
    if (row.global_sequence === null) continue;
    returned++;
    last = row;
    if (row.matches) events.push(toRecordedEvent(row as EventRow));
  }
  return {
    events,
    scanned: last?.scanned != null ? Number(last.scanned) : returned,
    lastScanned: last ? { transactionId: BigInt(last.transaction_id!), sequence: BigInt(last.global_sequence!) } : undefined,
    horizon: BigInt(first.horizon),
    pendingBeyondHorizon: first.pending === true,
  };
}

/**
 * The last event, either of everything committed (`committed`: what "every event committed so far"
 * reaches, for `caughtUp`) or of the final part of the log (`final`: below the snapshot horizon, where no
 * later commit can slip in before it; safe to subscribe from).
 */
export async function readHeadPosition(db: Executor, which: 'committed' | 'final'): Promise<PostgresPosition | undefined> {
  const gate = which === 'final' ? sql`where e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())` : sql``;
  const { rows } = await sql<{ transaction_id: string; global_sequence: bigint }>`
    select e.transaction_id::text as transaction_id, e.global_sequence from events e ${gate}
     order by e.transaction_id desc, e.global_sequence desc limit 1`.execute(db);
  const row = rows[0];
  return row ? { transactionId: BigInt(row.transaction_id), sequence: row.global_sequence } : undefined;
}

export async function countEventsAfter(db: Executor, after: PostgresPosition, limit: number): Promise<LagSample> {
  const { rows } = await sql<{ events: number; oldest: Date | string | null }>`
    select count(*)::int as events, min(recorded_at) as oldest from (
      select recorded_at from events
       where (transaction_id, global_sequence) > (${after.transactionId.toString()}::text::xid8, ${after.sequence.toString()}::bigint)
       order by transaction_id, global_sequence
       limit ${String(limit)}::bigint) t`.execute(db);
  const row = rows[0];
  const oldest = row?.oldest ?? undefined;
  return { events: row?.events ?? 0, oldestRecordedAt: oldest === undefined ? undefined : new Date(oldest) };
}
