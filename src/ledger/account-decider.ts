import type { ModelCategory } from '../billing/categories.js';
import type { CostByKind } from '../billing/money.js';
import type { Usage } from '../billing/usage.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { AccountEvent, ReleaseReason, SpendOwner } from './account-events.js';
import { availableOf, counterAt, liveReservations, type AccountState, type OpenReservation } from './account-state.js';
import type { PeriodKind } from './spend-periods.js';
import { spendScope } from './spend-scopes.js';

/**
 * The account decider: pure `decideAccount(state, command, now) → events | rejection`.
 * It is the only place that says whether money may move. No I/O, no clock of its own.
 */
export interface SpendLimits {
  readonly daily?: bigint;
  readonly monthly?: bigint;
}

/** Every limit that applies to one request, gathered from the key, its employee and team, and the organization. */
export interface ReserveLimits {
  readonly key?: SpendLimits;
  readonly keyByType?: SpendLimits;
  readonly keyByModel?: SpendLimits;
  readonly employee?: SpendLimits;
  readonly team?: SpendLimits;
  readonly organization?: SpendLimits;
}

/**
 * How many requests may be open at once (from the reserve to the close) for the request's key and for its
 * whole organization; absent: no cap. The account's owner decides every reserve of the account, so the
 * count is exact across instances.
 */
export interface ConcurrencyCaps {
  readonly key?: number;
  readonly organization?: number;
}

export type AccountCommand =
  | { readonly type: 'AddCredits'; readonly amount: bigint; readonly idempotencyKey?: string }
  | {
      readonly type: 'ReserveFunds';
      readonly reservationId: string;
      /** The endpoint that asks, for the request log (FundsReserved.endpoint); null when no endpoint does. */
      readonly endpoint: string | null;
      readonly owner: SpendOwner;
      readonly model: string;
      readonly category: ModelCategory;
      readonly amount: bigint;
      /**
       * The price version and service tier the amount was priced at; the close is charged at the same. A
       * request always has one; null is money moved at no recorded price (tools and tests that reserve and
       * settle amounts of their own), which the audit's re-pricing counts apart.
       */
      readonly price: { readonly version: number | null; readonly serviceTier: string | null };
      readonly deadline: Date;
      readonly limits: ReserveLimits;
      readonly concurrency?: ConcurrencyCaps;
      /** The revision of each access stream (`key-…`, `org-…`) the caller's checks and limits came from. */
      readonly accessRevisions: Readonly<Record<string, bigint>>;
      /** The instance whose request will close it (FundsReserved's `heldBy`); absent or null for a video job's. */
      readonly heldBy?: string | null;
    }
  /**
   * `cost`: the usage priced at the reservation's price; `piiMaskingFee`: the part of it that is the PII
   * masking fee (none when absent); `costByKind`: the rest split by kind (not split when absent).
   */
  | ({ readonly type: 'SettleReservation' } & CloseCharge)
  | { readonly type: 'ReleaseReservation'; readonly reservationId: string; readonly reason: ReleaseReason }
  | ({ readonly type: 'CutOffReservation' } & CloseCharge)
  /**
   * Without `holderLost`: expire it once its deadline has passed. With it: the instance of that id died
   * (its heartbeat lapsed), so a reservation it held is closed now; one held by anyone else is left alone.
   */
  | { readonly type: 'ExpireReservation'; readonly reservationId: string; readonly holderLost?: string }
  | { readonly type: 'FenceAccessRules'; readonly stream: string; readonly revision: bigint };

interface CloseCharge {
  readonly reservationId: string;
  readonly cost: bigint;
  readonly usage: Usage;
  readonly piiMaskingFee?: bigint;
  readonly costByKind?: CostByKind;
  /** Who answered and the price `cost` was worked out at; absent: the reservation's model at its price. */
  readonly answered?: AnsweredCharge;
}

/** The model and deployment that answered a request, the attempts it took, and the price it is charged at. */
export interface AnsweredCharge {
  readonly model: string;
  readonly deployment: string;
  readonly attempts: number;
  /** The price book entry (`pricedAs`), its version and tier: the answering candidate's. */
  readonly price: { readonly of: string; readonly version: number; readonly serviceTier: string | null };
}

/**
 * `stale`: the caller decided on access data older than the account knows of (a key was revoked or its
 * limits changed through another instance); it must refresh those streams and try again.
 */
export type AccountDecision =
  | { readonly events: AccountEvent[] }
  | { readonly rejection: GatewayError }
  | { readonly stale: ReadonlyArray<{ stream: string; revision: bigint }> };

export function decideAccount(state: AccountState, command: AccountCommand, now: Date): AccountDecision {
  switch (command.type) {
    case 'AddCredits': {
      if (command.amount <= 0n) return reject('invalid_request', 'amount_usd must be greater than zero');
      // The same Idempotency-Key twice adds once (admin top-ups are retried by operators and scripts).
      if (command.idempotencyKey && state.creditKeys.has(command.idempotencyKey)) return { events: [] };
      return { events: [{ type: 'CreditsAdded', data: { amount: String(command.amount), idempotencyKey: command.idempotencyKey ?? null } }] };
    }
    case 'ReserveFunds': {
      if (state.open.has(command.reservationId)) return { events: [] };
      const stale = staleAccess(state, command.accessRevisions);
      if (stale.length > 0) return { stale };
      const refusal = reserveRefusal(state, command, now) ?? concurrencyRefusal(state, command, now);
      if (refusal) return { rejection: refusal };
      const { reservationId, endpoint, owner, model, category, amount, price, deadline } = command;
      const priceApplied = { priceVersion: price.version, serviceTier: price.serviceTier };
      return {
        events: [
          {
            type: 'FundsReserved',
            data: { reservationId, endpoint, ...owner, ...priceApplied, model, category, amount: String(amount), deadline: deadline.toISOString(), heldBy: command.heldBy ?? null },
          },
        ],
      };
    }
    case 'SettleReservation': {
      const reservation = state.open.get(command.reservationId);
      // Closing twice is a retry, not an error: the first close stands.
      if (!reservation) return { events: [] };
      const overrun = command.cost > reservation.amount ? command.cost - reservation.amount : 0n;
      return {
        events: [
          {
            type: 'ReservationSettled',
            data: { ...closeCharge(command, reservation), overrun: String(overrun) },
          },
        ],
      };
    }
    case 'ReleaseReservation':
      if (!state.open.has(command.reservationId)) return { events: [] };
      return { events: [{ type: 'ReservationReleased', data: { reservationId: command.reservationId, reason: command.reason } }] };
    case 'CutOffReservation': {
      const reservation = state.open.get(command.reservationId);
      if (!reservation) return { events: [] };
      return { events: [{ type: 'ReservationCutOff', data: closeCharge(command, reservation) }] };
    }
    case 'ExpireReservation': {
      const reservation = state.open.get(command.reservationId);
      if (!reservation) return { events: [] };
      // Charged nothing either way, as the sweeper always did: the request that could have said what was
      // used is gone, and the loss of what the provider may have produced is the operator's, never the client's.
      if (command.holderLost !== undefined) {
        if (reservation.heldBy !== command.holderLost) return { events: [] };
        return { events: [{ type: 'ReservationExpired', data: { reservationId: command.reservationId, reason: 'holder_lost' } }] };
      }
      if (new Date(reservation.deadline) > now) return { events: [] };
      return { events: [{ type: 'ReservationExpired', data: { reservationId: command.reservationId, reason: 'deadline' } }] };
    }
    case 'FenceAccessRules':
      if ((state.accessRevisions.get(command.stream) ?? -1n) >= command.revision) return { events: [] };
      return { events: [{ type: 'AccessRulesChanged', data: { stream: command.stream, revision: String(command.revision) } }] };
  }
}

/** What a settle or a cut-off records: the charge, split by kind, at the answering candidate's price (the reservation's when none is named). */
function closeCharge(command: CloseCharge, reservation: OpenReservation) {
  const costByKind = Object.fromEntries(Object.entries(command.costByKind ?? {}).map(([kind, amount]) => [kind, String(amount)]));
  return {
    reservationId: command.reservationId,
    cost: String(command.cost),
    usage: command.usage,
    piiMaskingFee: String(command.piiMaskingFee ?? 0n),
    costByKind,
    priceVersion: command.answered ? command.answered.price.version : reservation.priceVersion,
    serviceTier: command.answered ? command.answered.price.serviceTier : reservation.serviceTier,
    answeringModel: command.answered?.model ?? null,
    deployment: command.answered?.deployment ?? null,
    attempts: command.answered?.attempts ?? null,
    pricedAs: command.answered?.price.of ?? null,
  };
}

function staleAccess(state: AccountState, known: Readonly<Record<string, bigint>>): Array<{ stream: string; revision: bigint }> {
  const stale: Array<{ stream: string; revision: bigint }> = [];
  for (const [stream, revision] of state.accessRevisions) {
    const seen = known[stream];
    // Only the streams this request's checks came from matter; another key's change does not.
    if (seen !== undefined && seen < revision) stale.push({ stream, revision });
  }
  return stale;
}

type ReserveCommand = Extract<AccountCommand, { type: 'ReserveFunds' }>;

/**
 * All checks of one reserve, in the order a user can act on them: the balance, then the key's limits
 * (by model, by type, overall), then the employee's, the team's and the organization's. A limit counts
 * settled spend in the period plus open reservations (spec 8; peer-pitfalls "budgets checked after the fact").
 */
function reserveRefusal(state: AccountState, command: ReserveCommand, now: Date): GatewayError | undefined {
  if (availableOf(state) < command.amount) {
    return new GatewayError('insufficient_funds', 'organization balance insufficient for this request');
  }
  const { owner, limits, category, model } = command;
  const checks: Array<[SpendLimits | undefined, string, (period: string) => GatewayError]> = [
    [limits.keyByModel, spendScope.keyByModel(owner.keyId, model), (period) => keyLimit(period, ` for model ${model}`)],
    [limits.keyByType, spendScope.keyByType(owner.keyId, category), (period) => keyLimit(period, ` for ${category} generation`)],
    [limits.key, spendScope.key(owner.keyId), (period) => keyLimit(period, '')],
    [owner.employeeId ? limits.employee : undefined, spendScope.employee(owner.employeeId ?? ''), (period) => spendLimit('employee', period)],
    [owner.teamId ? limits.team : undefined, spendScope.team(owner.teamId ?? ''), (period) => spendLimit('team', period)],
    [limits.organization, spendScope.organization, (period) => spendLimit('organization', period)],
  ];
  for (const [limit, scope, refusal] of checks) {
    if (!limit) continue;
    for (const [kind, cap] of [['day', limit.daily], ['month', limit.monthly]] as Array<[PeriodKind, bigint | undefined]>) {
      if (cap === undefined) continue;
      const counter = counterAt(state, scope, kind, now);
      if (counter.settled + counter.reserved + command.amount > cap) return refusal(kind);
    }
  }
  return undefined;
}

/**
 * The key's and the organization's caps on requests open at once. Checked after the money, so that a
 * request the organization cannot pay for is told so (402) rather than to come back later (429).
 * `Retry-After: 1`: a slot frees when any request of the key ends, which no one can know in advance.
 */
function concurrencyRefusal(state: AccountState, command: ReserveCommand, now: Date): GatewayError | undefined {
  const { key, organization } = command.concurrency ?? {};
  if (key !== undefined && liveReservations(state.openByKey.get(command.owner.keyId) ?? [], now, key) >= key) {
    return new GatewayError('rate_limit_exceeded', `this API key already has ${requests(key)} running, its max_concurrent_requests; retry when one of them has ended`, { retryAfterSeconds: 1 });
  }
  if (organization !== undefined && liveReservations(state.open.values(), now, organization) >= organization) {
    return new GatewayError('rate_limit_exceeded', `the organization already has ${requests(organization)} running, its max_concurrent_requests; retry when one of them has ended`, {
      retryAfterSeconds: 1,
    });
  }
  return undefined;
}

const requests = (count: number) => (count === 1 ? '1 request' : `${count} requests`);

// Spec 7.3 rule 1: on the messages endpoint these texts are how a client tells the 402s apart; keep them exact.
const keyLimit = (period: string, suffix: string) =>
  new GatewayError('key_limit_exceeded', `spending limit of this API key for the ${period} is exceeded${suffix}`);
const spendLimit = (scope: 'employee' | 'team' | 'organization', period: string) =>
  new GatewayError('spend_limit_exceeded', `spending limit of the ${scope} for the ${period} is exceeded`);

function reject(code: 'invalid_request', message: string): AccountDecision {
  return { rejection: new GatewayError(code, message) };
}
