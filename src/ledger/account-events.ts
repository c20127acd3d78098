import type { ModelCategory } from '../billing/categories.js';
import type { CostKind } from '../billing/money.js';
import type { Usage } from '../billing/usage.js';

/**
 * Events of the `account-<orgId>` stream: every movement of an organization's money.
 * Amounts are integer nanodollars written as decimal strings (bigint does not survive JSON).
 * An event's meaning never changes; a new shape is a new schema version with an upcaster. `usage` is the
 * gateway's Usage here; account-event-catalogue.ts converts it to and from the shape the log stores.
 */
export type NanodollarString = string;

export interface CreditsAdded {
  type: 'CreditsAdded';
  data: { amount: NanodollarString; idempotencyKey: string | null };
}

/** Who a reservation's spend belongs to; fixed at reserve time, so later changes do not rewrite history. */
export interface SpendOwner {
  keyId: string;
  employeeId: string | null;
  teamId: string | null;
  spaceId: string | null;
}

/**
 * The price a reservation was made at (src/prices): the model's price version and the service tier; its
 * settlement or cut-off is charged at the same one. Null in events recorded before prices were versioned.
 */
export interface PriceApplied {
  priceVersion: number | null;
  serviceTier: string | null;
}

/**
 * Who answered a request (version 3 of the settle and cut-off events; null in older ones, and in money
 * moved by tools with no provider call): the catalog model that answered (the requested one, or one of
 * its fallbacks), the deployment it answered from, how many attempts the request made in all, and the
 * price book entry its `priceVersion` is a version of (the answering model's id, or its deployment's id
 * when that deployment has rates of its own). A null `pricedAs` is the reservation's model.
 */
export interface AnsweredBy {
  answeringModel: string | null;
  deployment: string | null;
  attempts: number | null;
  pricedAs: string | null;
}

/** Who answered, unsaid: events written before version 3, and money moved with no provider call. */
export const NOT_ANSWERED: AnsweredBy = { answeringModel: null, deployment: null, attempts: null, pricedAs: null };

/** A charge split by token kind (`input`, `cachedInput`, `cacheWrite`, `output`, `reasoning`, `audio`, `media`), without the masking fee. */
export type CostByKindStrings = Partial<Record<CostKind, NanodollarString>>;

export interface FundsReserved {
  type: 'FundsReserved';
  data: SpendOwner & PriceApplied & {
    /** The request id (`gen-…`, or `video_…` for video jobs). */
    reservationId: string;
    /**
     * The endpoint that reserved, by its short name (`chat`, `messages`, `responses`, `embeddings`, `images`,
     * `transcriptions`), for the request log; null in reserves recorded before the log said (version 1).
     */
    endpoint: string | null;
    model: string;
    category: ModelCategory;
    amount: NanodollarString;
    /** ISO time after which the sweeper may expire it. */
    deadline: string;
    /**
     * The gateway instance whose request holds the reservation and will close it (src/ledger/instances):
     * if that instance dies, the others expire the reservation within seconds instead of at its deadline.
     * Null when a video job holds it (its worker closes it, whichever instance runs it), and for
     * reservations recorded by version 1 of the event, before instances were named.
     */
    heldBy: string | null;
  };
}

/**
 * `piiMaskingFee`: the part of `cost` that is the PII masking fee ('0' for a request not masked);
 * `costByKind`: the rest split by kind (empty when the charge was not split: recorded before, or by a
 * caller that priced no tokens); the price is the one of the model and deployment that answered (the
 * reservation's when no one else did), named by `pricedAs`.
 */
export interface ReservationSettled {
  type: 'ReservationSettled';
  data: PriceApplied & AnsweredBy & { reservationId: string; cost: NanodollarString; usage: Usage; overrun: NanodollarString; piiMaskingFee: NanodollarString; costByKind: CostByKindStrings };
}

export interface ReservationReleased {
  type: 'ReservationReleased';
  data: { reservationId: string; reason: ReleaseReason };
}

/** The key was revoked while the request ran: charged for what was received (spec 3 rule 5). */
export interface ReservationCutOff {
  type: 'ReservationCutOff';
  data: PriceApplied & AnsweredBy & { reservationId: string; cost: NanodollarString; usage: Usage; piiMaskingFee: NanodollarString; costByKind: CostByKindStrings };
}

/**
 * Closed by the gateway itself, charging nothing, because no request will close it any more: its
 * `deadline` passed (the reservation sweeper), or the instance that held it died (`holder_lost`: its
 * heartbeat lapsed, and another instance closed what it held). Version 1 of the event knew only deadlines.
 */
export interface ReservationExpired {
  type: 'ReservationExpired';
  data: { reservationId: string; reason: ExpiryReason };
}

export type ExpiryReason = 'deadline' | 'holder_lost';

/**
 * A fence: an access stream (`key-…` or `org-…`) changed something that decides spending (revocation,
 * limits, model list, blocking). A reserve decided on an older revision of that stream is refused as
 * stale, so the instance refreshes its access cache first; the change binds every instance at once.
 */
export interface AccessRulesChanged {
  type: 'AccessRulesChanged';
  data: { stream: string; revision: string };
}

export type ReleaseReason = 'provider_error' | 'client_error' | 'cancelled' | 'video_failed';

export type AccountEvent =
  | CreditsAdded
  | FundsReserved
  | ReservationSettled
  | ReservationReleased
  | ReservationCutOff
  | ReservationExpired
  | AccessRulesChanged;
export type AccountEventType = AccountEvent['type'];

export const ACCOUNT_EVENT_TYPES: readonly AccountEventType[] = [
  'CreditsAdded',
  'FundsReserved',
  'ReservationSettled',
  'ReservationReleased',
  'ReservationCutOff',
  'ReservationExpired',
  'AccessRulesChanged',
];

export const accountStreamId = (orgId: string) => `account-${orgId}`;
