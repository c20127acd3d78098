import { sql, type Kysely } from 'kysely';
import { parseEventsToAppend, parseExpectedRevision } from '../event-envelope.js';
import { WrongExpectedRevisionError, type AppendResult, type EventToAppend, type ExpectedRevision } from '../event-store.js';
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
    switch (row.outcome) {
      case 'appended':
      case 'idempotent':
        return {
          nextExpectedRevision: row.last_revision!,
          position: encodePostgresPosition(row.last_transaction_id!, row.last_sequence!),
        };
      case 'conflict':
        throw new WrongExpectedRevisionError(streamId, expected, row.last_revision ?? 'no_stream');
      default: {
        const unexpected: never = row.outcome;
        throw new Error(`append_events returned outcome ${String(unexpected)}`);
      }
    }
  }
}

function isDuplicateEventId(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint, message } = error as { code?: unknown; constraint?: unknown; message?: unknown };
  return code === '23505' && (constraint === 'events_stream_event_id_key' || String(message).includes('events_stream_event_id_key'));
}
