import { sql, type Kysely } from 'kysely';
import { parseEventsToAppend, parseExpectedRevision } from '../event-envelope.js';
import { WrongExpectedRevisionError, type AppendResult, type AppendSettled, type EventToAppend, type ExpectedRevision, type StreamAppend } from '../event-store.js';
import { encodePostgresPosition } from './postgres-position.js';

interface AppendRow {
  outcome: 'appended' | 'idempotent' | 'conflict';
  last_revision: bigint | null;
  last_transaction_id: string | null;
  last_sequence: bigint | null;
}

/**
 * One append in one statement (one round trip): `append_events_locked` takes the stream's write lock
 * (src/db/migrations/0101-stream-write-locks.ts), and `append_events` checks the expected revision, the
 * event ids, moves the stream's revision and inserts the batch (its SQL and the reasoning:
 * src/db/migrations/0001-event-store.ts).
 *
 * `db` may be a transaction only if this is its first write: the global order is the transaction id, and
 * Postgres assigns it at the first write, so anything written before would give the events an older id
 * than a transaction that appended to the same stream earlier. The store itself always runs it alone.
 */
export async function appendToStream(
  db: Kysely<object>,
  streamId: string,
  events: readonly EventToAppend[],
  expectedRevision: ExpectedRevision,
): Promise<AppendResult> {
  const batch = parseEventsToAppend(streamId, events);
  const expected = parseExpectedRevision(expectedRevision);
  const payload = JSON.stringify(batch);
  for (let attempt = 0; ; attempt++) {
    let row: AppendRow | undefined;
    try {
      ({
        rows: [row],
      } = await sql<AppendRow>`select * from append_events_locked(${streamId}, ${String(expected)}, ${payload}::text::jsonb)`.execute(db));
    } catch (error) {
      // Two appends of the same batch with 'any' or 'stream_exists' can both pass the id check before either
      // commits; the loser then trips the unique event id. Run again: the id check now sees the winner's
      // events and answers as the idempotent retry it is. (Inside a caller's transaction we cannot retry.)
      if (attempt === 0 && !db.isTransaction && isDuplicateEventId(error)) continue;
      throw error;
    }
    if (!row) throw new Error('append_events returned no row');
    const settled = settledOf(row, streamId, expected);
    if ('error' in settled) throw settled.error;
    return settled.result;
  }
}

/**
 * Several streams' appends in one statement and one commit (`append_events_many`, migration 0103), each
 * entry with its own expected revision and its own answer: a conflict or an invalid batch is that entry's
 * error, the others are written. Must run alone, not inside a transaction (see appendToStream). When the
 * statement fails as a whole (two appends of one batch racing on its event ids, see appendToStream), each
 * entry is appended on its own, which settles that race; an error of the database reaches every entry.
 */
export async function appendToStreams(db: Kysely<object>, appends: readonly StreamAppend[]): Promise<AppendSettled[]> {
  const settled: (AppendSettled | undefined)[] = [];
  const valid: { index: number; streamId: string; expected: ExpectedRevision; batch: unknown[] }[] = [];
  appends.forEach((append, index) => {
    try {
      valid.push({ index, streamId: append.streamId, expected: parseExpectedRevision(append.expectedRevision), batch: parseEventsToAppend(append.streamId, append.events) });
      settled.push(undefined);
    } catch (error) {
      settled.push({ error });
    }
  });
  if (valid.length > 0) {
    const payload = JSON.stringify(valid.map(({ streamId, expected, batch }) => ({ stream: streamId, expected: String(expected), events: batch })));
    let rows: (AppendRow & { ordinal: bigint })[];
    try {
      ({ rows } = await sql<AppendRow & { ordinal: bigint }>`select * from append_events_many(${payload}::text::jsonb)`.execute(db));
    } catch (error) {
      if (!isDuplicateEventId(error)) throw error;
      // one after the other: entries of one stream keep their order
      for (const { index, streamId, expected } of valid) {
        settled[index] = await appendToStream(db, streamId, appends[index]!.events, expected).then(
          (result): AppendSettled => ({ result }),
          (failure: unknown): AppendSettled => ({ error: failure }),
        );
      }
      return settled as AppendSettled[];
    }
    if (rows.length !== valid.length) throw new Error(`append_events_many returned ${rows.length} rows for ${valid.length} appends`);
    for (const row of rows) {
      const entry = valid[Number(row.ordinal) - 1]!;
      settled[entry.index] = settledOf(row, entry.streamId, entry.expected);
    }
  }
  return settled as AppendSettled[];
}

function settledOf(row: AppendRow, streamId: string, expected: ExpectedRevision): AppendSettled {
  switch (row.outcome) {
    case 'appended':
    case 'idempotent':
      return { result: { nextExpectedRevision: row.last_revision!, position: encodePostgresPosition(row.last_transaction_id!, row.last_sequence!) } };
    case 'conflict':
      return { error: new WrongExpectedRevisionError(streamId, expected, row.last_revision ?? 'no_stream') };
    default: {
      const unexpected: never = row.outcome;
      throw new Error(`append_events returned outcome ${String(unexpected)}`);
    }
  }
}

function isDuplicateEventId(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint, message } = error as { code?: unknown; constraint?: unknown; message?: unknown };
  return code === '23505' && (constraint === 'events_stream_event_id_key' || String(message).includes('events_stream_event_id_key'));
}
