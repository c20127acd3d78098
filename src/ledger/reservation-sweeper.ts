import type { Clock } from '../clock.js';
import type { Accounts } from './accounts.js';

/** A reservation that looks open past its deadline: the account it holds money of, and its id. */
export interface OverdueReservation {
  readonly orgId: string;
  readonly reservationId: string;
}

/**
 * Up to `limit` reservations that look open with a deadline before `now`, the earliest deadline first.
 * The request log read model knows them (projections/overdue-reservations.ts); the composition root hands
 * its query in, since the ledger sits below the read models and never imports them.
 */
export type ListOverdueReservations = (now: Date, limit: number) => Promise<readonly OverdueReservation[]>;

/**
 * Closes reservations past their deadline with `ReservationExpired`, releasing their money, so that an
 * instance that crashed mid-request never locks an organization's money for good. The request log read
 * model says which reservations look open and late; the account decider checks again against the stream
 * (the read model may lag), so a reservation settled meanwhile is left alone.
 */
export async function sweepExpiredReservations(listOverdue: ListOverdueReservations, accounts: Accounts, clock: Clock, limit = 500): Promise<number> {
  let expired = 0;
  for (const { orgId, reservationId } of await listOverdue(clock.now(), limit)) {
    const outcome = await accounts.execute(orgId, { type: 'ExpireReservation', reservationId }, 'system:sweeper');
    if ('events' in outcome.decision && outcome.decision.events.length > 0) expired++;
  }
  return expired;
}

export const SWEEP_INTERVAL_MS = 30_000;
