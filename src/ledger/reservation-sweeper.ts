import { sql, type Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Accounts } from './accounts.js';

/**
 * Closes reservations past their deadline with `ReservationExpired`, releasing their money, so that an
 * instance that crashed mid-request never locks an organization's money for good. The request log read
 * model says which reservations look open and late; the account decider checks again against the stream
 * (the read model may lag), so a reservation settled meanwhile is left alone.
 */
export async function sweepExpiredReservations(db: Kysely<object>, accounts: Accounts, clock: Clock, limit = 500): Promise<number> {
  const { rows } = await sql<{ org_id: string; request_id: string }>`
    select org_id, request_id from requests where status = 'open' and deadline < ${clock.now().toISOString()} order by deadline limit ${limit}`.execute(db);
  let expired = 0;
  for (const row of rows) {
    const outcome = await accounts.execute(row.org_id, { type: 'ExpireReservation', reservationId: row.request_id }, 'system:sweeper');
    if ('events' in outcome.decision && outcome.decision.events.length > 0) expired++;
  }
  return expired;
}

export const SWEEP_INTERVAL_MS = 30_000;
