import type { ModelCategory } from '../billing/categories.js';
import type { AccountEvent, SpendOwner } from './account-events.js';
import { periodsOf } from './spend-periods.js';
import { spendScopes } from './spend-scopes.js';

/**
 * What the reserve decision needs to know about one organization's account, folded from its stream:
 * the balance, the open reservations, and spend counters for the current day and month.
 *
 * `applyAccountEvent` changes the state in place: the account service keeps one state per hot account
 * and applies thousands of events a second to it, so copying maps per event would be the bottleneck.
 * Speculative batches work on `cloneAccountState`, which is discarded when the append conflicts.
 */
export interface OpenReservation {
  readonly reservationId: string;
  readonly amount: bigint;
  readonly owner: SpendOwner;
  readonly model: string;
  readonly category: ModelCategory;
  readonly deadline: string;
  /** The price it was reserved at, which its close is charged at (null: reserved before prices were versioned). */
  readonly priceVersion: number | null;
  readonly serviceTier: string | null;
  /** The instance whose request will close it; null for a video job's (and for version 1 events). */
  readonly heldBy: string | null;
  readonly day: string;
  readonly month: string;
  /** The counters its spend counts against (`spendScopes`), worked out once: a request opens and closes it. */
  readonly scopes: readonly string[];
}

/** Settled spend and open reservations of one scope (key, employee, team, organization) in one period. */
export interface PeriodCounter {
  settled: bigint;
  reserved: bigint;
}

export interface AccountState {
  credits: bigint;
  settled: bigint;
  reserved: bigint;
  readonly open: Map<string, OpenReservation>;
  /** The open reservations of each key: what its concurrency cap counts (kept beside `open` not to scan it). */
  readonly openByKey: Map<string, Set<OpenReservation>>;
  readonly creditKeys: Set<string>;
  /** The newest revision of each access stream whose rules the account has been told about. */
  readonly accessRevisions: Map<string, bigint>;
  day: string;
  month: string;
  dayCounters: Map<string, PeriodCounter>;
  monthCounters: Map<string, PeriodCounter>;
}

export function emptyAccountState(): AccountState {
  return {
    credits: 0n,
    settled: 0n,
    reserved: 0n,
    open: new Map(),
    openByKey: new Map(),
    creditKeys: new Set(),
    accessRevisions: new Map(),
    day: '',
    month: '',
    dayCounters: new Map(),
    monthCounters: new Map(),
  };
}

/** credits − settled; overruns can take it below zero, reserves never do. */
export const balanceOf = (state: AccountState) => state.credits - state.settled;
export const availableOf = (state: AccountState) => balanceOf(state) - state.reserved;

export function applyAccountEvent(state: AccountState, event: AccountEvent, occurredAt: string): AccountState {
  switch (event.type) {
    case 'CreditsAdded':
      state.credits += BigInt(event.data.amount);
      if (event.data.idempotencyKey) state.creditKeys.add(event.data.idempotencyKey);
      return state;
    case 'FundsReserved': {
      const { reservationId, amount, deadline, model, category, keyId, employeeId, teamId, spaceId, priceVersion, serviceTier, heldBy } = event.data;
      const periods = periodsOf(occurredAt);
      rollPeriods(state, periods.day, periods.month);
      const owner = { keyId, employeeId, teamId, spaceId };
      const reservation: OpenReservation = {
        reservationId,
        amount: BigInt(amount),
        owner,
        model,
        category,
        deadline,
        priceVersion,
        serviceTier,
        heldBy,
        day: periods.day,
        month: periods.month,
        scopes: spendScopes(owner, category, model),
      };
      openReservation(state, reservation);
      countReservation(state, reservation, reservation.amount, 0n);
      return state;
    }
    case 'ReservationSettled':
    case 'ReservationCutOff':
      return endReservation(state, event.data.reservationId, BigInt(event.data.cost));
    case 'ReservationReleased':
    case 'ReservationExpired':
      return endReservation(state, event.data.reservationId, 0n);
    case 'AccessRulesChanged': {
      const revision = BigInt(event.data.revision);
      if (revision > (state.accessRevisions.get(event.data.stream) ?? -1n)) state.accessRevisions.set(event.data.stream, revision);
      return state;
    }
  }
}

/** Holds a reservation's money, and one of its key's concurrent requests, until it ends. */
export function openReservation(state: AccountState, reservation: OpenReservation): void {
  state.open.set(reservation.reservationId, reservation);
  state.reserved += reservation.amount;
  let ofKey = state.openByKey.get(reservation.owner.keyId);
  if (!ofKey) state.openByKey.set(reservation.owner.keyId, (ofKey = new Set()));
  ofKey.add(reservation);
}

/** A reservation ends (settled, released, cut off or expired): its reserve leaves the counters, its cost, if any, joins them. */
function endReservation(state: AccountState, reservationId: string, cost: bigint): AccountState {
  const reservation = state.open.get(reservationId);
  if (!reservation) return state; // the decider never emits this; tolerate it when folding history
  state.open.delete(reservationId);
  const ofKey = state.openByKey.get(reservation.owner.keyId);
  ofKey?.delete(reservation);
  if (ofKey?.size === 0) state.openByKey.delete(reservation.owner.keyId);
  state.reserved -= reservation.amount;
  state.settled += cost;
  countReservation(state, reservation, -reservation.amount, cost);
  return state;
}

/** Adds to the counters of the reservation's own period, when that period is still the current one. */
function countReservation(state: AccountState, reservation: OpenReservation, reservedDelta: bigint, settledDelta: bigint): void {
  const targets: Array<Map<string, PeriodCounter>> = [];
  if (reservation.day === state.day) targets.push(state.dayCounters);
  if (reservation.month === state.month) targets.push(state.monthCounters);
  if (targets.length === 0) return;
  for (const scope of reservation.scopes) {
    for (const counters of targets) {
      let counter = counters.get(scope);
      if (!counter) counters.set(scope, (counter = { settled: 0n, reserved: 0n }));
      counter.reserved += reservedDelta;
      counter.settled += settledDelta;
    }
  }
}

/** A reservation in a new day (month) starts fresh day (month) counters; older periods no longer limit anything. */
function rollPeriods(state: AccountState, day: string, month: string): void {
  if (day > state.day) {
    state.day = day;
    state.dayCounters = new Map();
  }
  if (month > state.month) {
    state.month = month;
    state.monthCounters = new Map();
  }
}

export function cloneAccountState(state: AccountState): AccountState {
  const cloneCounters = (counters: Map<string, PeriodCounter>) => new Map([...counters].map(([scope, counter]) => [scope, { ...counter }]));
  return {
    ...state,
    open: new Map(state.open),
    openByKey: new Map([...state.openByKey].map(([keyId, reservations]) => [keyId, new Set(reservations)])),
    creditKeys: new Set(state.creditKeys),
    accessRevisions: new Map(state.accessRevisions),
    dayCounters: cloneCounters(state.dayCounters),
    monthCounters: cloneCounters(state.monthCounters),
  };
}

/** The counter of `scope` for the period of `now`; zero when the state's period is an older one. */
export function counterAt(state: AccountState, scope: string, kind: 'day' | 'month', now: Date): PeriodCounter {
  const periods = periodsOf(now);
  const current = kind === 'day' ? state.day === periods.day : state.month === periods.month;
  if (!current) return { settled: 0n, reserved: 0n };
  return (kind === 'day' ? state.dayCounters : state.monthCounters).get(scope) ?? { settled: 0n, reserved: 0n };
}

/**
 * How many of `reservations` still hold a request slot at `now`, counted up to `cap`: every one until it
 * closes or its deadline passes. Past its deadline a reservation is one the sweeper expires (its instance
 * crashed, or its request outlived the provider's timeout), so its slot is free again at once, while its
 * money stays held until the sweeper's `ReservationExpired`.
 */
export function liveReservations(reservations: Iterable<OpenReservation>, now: Date, cap: number): number {
  const instant = now.toISOString();
  let live = 0;
  for (const reservation of reservations) {
    // ISO times of one format compare as strings
    if (reservation.deadline > instant && ++live >= cap) break;
  }
  return live;
}
