import type { EventToAppend } from '../eventstore/event-store.js';
import { decideAccount, type AccountCommand } from './account-decider.js';
import { accountEventEnvelope } from './account-event-catalogue.js';
import { applyAccountEvent, balanceOf, cloneAccountState, type AccountState } from './account-state.js';
import type { AccountOutcome } from './accounts.js';

/** A batch decided against the account: the state after it, each command's outcome, the events to append. */
export interface DecidedBatch {
  readonly working: AccountState;
  readonly outcomes: readonly AccountOutcome[];
  readonly toAppend: readonly EventToAppend[];
}

/**
 * Decides each command of a batch in turn against the evolving state (a copy of the account's): what the
 * account service appends in one append, and what it answers each caller. Pure: the service does the I/O.
 */
export function decideBatch(orgId: string, state: AccountState, batch: ReadonlyArray<{ readonly command: AccountCommand; readonly causedBy: string }>, now: Date): DecidedBatch {
  const occurredAt = now.toISOString();
  const working = cloneAccountState(state);
  const toAppend: EventToAppend[] = [];
  const outcomes: AccountOutcome[] = [];
  for (const { command, causedBy } of batch) {
    const decision = decideAccount(working, command, now);
    if ('events' in decision) {
      for (const event of decision.events) {
        applyAccountEvent(working, event, occurredAt);
        toAppend.push(accountEventEnvelope(orgId, event, occurredAt, causedBy));
      }
    }
    outcomes.push({ decision, balance: balanceOf(working), reserved: working.reserved });
  }
  return { working, outcomes, toAppend };
}

/**
 * A close of a reservation the state does not hold open: decided on an account this instance may not have
 * read to its end (another instance opened it), so the service reads the stream's tail first.
 */
export function closesUnknownReservation(state: AccountState, command: AccountCommand): boolean {
  switch (command.type) {
    case 'SettleReservation':
    case 'CutOffReservation':
    case 'ReleaseReservation':
    case 'ExpireReservation':
      return !state.open.has(command.reservationId);
    default:
      return false;
  }
}
