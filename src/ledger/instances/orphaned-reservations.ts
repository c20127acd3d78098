import type { Accounts } from '../accounts.js';
import type { GatewayInstances } from './gateway-instances.js';

/** An open reservation and the instance whose request holds it. */
export interface HeldReservation {
  readonly orgId: string;
  readonly reservationId: string;
  readonly heldBy: string;
}

/**
 * Up to `limit` reservations that look open and are held by one of `instanceIds`. The request log read
 * model knows them (projections/overdue-reservations.ts); the composition root hands its query in.
 */
export type ListHeldReservations = (instanceIds: readonly string[], limit: number) => Promise<readonly HeldReservation[]>;

/** How often an instance looks for dead instances' reservations. With the lease, it bounds how long they stay reserved. */
export const ORPHAN_SWEEP_INTERVAL_MS = 5_000;

/**
 * Closes the reservations of instances that died with requests in flight (`ReservationExpired`, reason
 * `holder_lost`), so that an organization's money comes back within seconds of the crash instead of at
 * the reservations' deadlines (the provider's timeout and a minute: eleven minutes with the default
 * timeout). They are charged nothing, as the deadline sweeper charges nothing: the request that could
 * have said what was used is gone. A video job's reservation is held by the job, not by an instance
 * (`heldBy` null), so it is never closed here: its worker bills it.
 *
 * Every instance runs this; two that close the same reservation decide once (the account closes a
 * reservation once), and the account decider checks again that the reservation is open and held by that
 * instance, since the read model may lag.
 */
export async function closeOrphanedReservations(instances: GatewayInstances, listHeld: ListHeldReservations, accounts: Accounts, limit = 500): Promise<number> {
  const dead = await instances.lapsed();
  if (dead.length === 0) return 0;
  const held = await listHeld(dead, limit);
  const outcomes = await Promise.all(
    held.map(({ orgId, reservationId, heldBy }) => accounts.execute(orgId, { type: 'ExpireReservation', reservationId, holderLost: heldBy }, 'system:orphan-closer')),
  );
  return outcomes.filter((outcome) => 'events' in outcome.decision && outcome.decision.events.length > 0).length;
}
