import type { Kysely } from 'kysely';
import type { ListOverdueReservations } from '../src/ledger/reservation-sweeper.js';
import type { ListHeldReservations } from '../src/ledger/instances/orphaned-reservations.js';

/**
 * The columns of the ledger projection's request log (ledger-projection.ts) that the query reads; a type
 * alias, not an interface, because `withTables` takes a record type.
 */
type RequestLog = {
  requests: { org_id: string; request_id: string; status: string; deadline: string };
};

/**
 * The reservation sweeper's question (src/ledger/reservation-sweeper.ts) asked of the request log: rows
 * still `open` whose deadline has passed, through the `requests_open_by_deadline` index. The read model
 * may lag the log; the account decider checks each one again before it expires it.
 */
export function overdueReservationsFrom(readModels: Kysely<object>): ListOverdueReservations {
  const db = readModels.withTables<RequestLog>();
  return async (now, limit) => {
    const rows = await db
      .selectFrom('requests')
      .select(['org_id', 'request_id'])
      .where('status', '=', 'open')
      .where('deadline', '<', now.toISOString())
      .orderBy('deadline')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ orgId: row.org_id, reservationId: row.request_id }));
  };
}

type HeldRequestLog = {
  requests: { org_id: string; request_id: string; status: string; held_by: string | null };
};

/**
 * The orphan closer's question (src/ledger/instances/orphaned-reservations.ts): open rows held by one of
 * the given instances. Through the same partial index of open requests, filtered by holder: the question
 * is asked only while some instance is known dead, and open requests are few.
 */
export function heldReservationsFrom(readModels: Kysely<object>): ListHeldReservations {
  const db = readModels.withTables<HeldRequestLog>();
  return async (instanceIds, limit) => {
    if (instanceIds.length === 0) return [];
    const rows = await db
      .selectFrom('requests')
      .select(['org_id', 'request_id', 'held_by'])
      .where('status', '=', 'open')
      .where('held_by', 'in', instanceIds)
      .limit(limit)
      .execute();
    return rows.map((row) => ({ orgId: row.org_id, reservationId: row.request_id, heldBy: row.held_by! }));
  };
}
