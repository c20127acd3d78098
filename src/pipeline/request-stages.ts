import type { AppliedPrice } from '../prices/applied-price.js';
import type { Nanodollars } from '../billing/money.js';
import type { Usage } from '../billing/usage.js';
import type { CatalogModel } from '../catalog/catalog.js';
import type { BodyKind, EndpointRequest, EndpointSpec, RequestBodies, ReserveEstimate } from '../endpoints/endpoint-spec.js';
import type { ReleaseReason, SpendOwner } from '../ledger/account-events.js';
import type { Caller } from './authenticate.js';
import type { ClientConnection } from './client-connection.js';
import type { PiiMasking } from './pii-header.js';
import type { PricedCandidate } from './candidates.js';
import type { ProviderFailureKind } from './provider-failure-kind.js';

/**
 * A request as it goes through the pipeline (src/pipeline/run-endpoint.ts): each step takes the stage the
 * one before it returned and returns the next, holding everything known so far. Nothing is shared and
 * mutated between steps; what a step learned is in the stage it returns.
 */
export interface Received<Request extends EndpointRequest = EndpointRequest, Kind extends BodyKind = BodyKind> {
  readonly spec: EndpointSpec<Request, Kind>;
  readonly connection: ClientConnection;
  /** The gateway request id (`gen-…`), also the reservation id. */
  readonly requestId: string;
  /** The pipeline's clock when the request arrived: periods, deadlines, the answer's `created`. */
  readonly now: Date;
}

export interface Authenticated<Request extends EndpointRequest = EndpointRequest, Kind extends BodyKind = BodyKind> extends Received<Request, Kind> {
  readonly caller: Caller;
}

/** Whether the request's text is masked (spec 4.3 rule 6); always `off` on an endpoint with nothing to mask. */
export interface MaskingDecided<Request extends EndpointRequest = EndpointRequest, Kind extends BodyKind = BodyKind> extends Authenticated<Request, Kind> {
  readonly masking: PiiMasking;
}

export interface BodyRead<Request extends EndpointRequest = EndpointRequest, Kind extends BodyKind = BodyKind> extends MaskingDecided<Request, Kind> {
  readonly body: RequestBodies[Kind];
}

export interface Parsed<Request extends EndpointRequest = EndpointRequest, Kind extends BodyKind = BodyKind> extends BodyRead<Request, Kind> {
  readonly request: Request;
  /** The request's own `fallbacks` (taken out of its body), when it names any. */
  readonly requestedFallbacks?: readonly string[] | undefined;
}

export interface Resolved<Request extends EndpointRequest = EndpointRequest, Kind extends BodyKind = BodyKind> extends Parsed<Request, Kind> {
  readonly model: CatalogModel;
  /** The models the request may end on, in the order they are tried: the model, then its fallbacks. */
  readonly candidates: readonly CatalogModel[];
}

export interface Estimated<Request extends EndpointRequest = EndpointRequest, Kind extends BodyKind = BodyKind> extends Resolved<Request, Kind> {
  readonly estimate: ReserveEstimate;
  /** The price the request is reserved and charged at: the version in force when it arrived, for its tier. */
  readonly price: AppliedPrice;
  /** The reserve: the estimate's worst case, priced; the dearest over every candidate deployment. */
  readonly amount: Nanodollars;
  /** Every deployment of every candidate model, with the price it would be charged at, in the order tried. */
  readonly priced: readonly PricedCandidate[];
}

export interface Admitted<Request extends EndpointRequest = EndpointRequest, Kind extends BodyKind = BodyKind> extends Estimated<Request, Kind> {
  /** The tokens counted against the key's tokens per minute, corrected when the request ends. */
  readonly admittedTokens: number;
}

/** The request's open reservation on its organization's account. */
export interface Reservation {
  readonly orgId: string;
  readonly reservationId: string;
  readonly owner: SpendOwner;
  readonly amount: bigint;
  /** The caller as of the reserve (a stale-access retry may have refreshed it). */
  readonly caller: Caller;
  /**
   * Settles when the reservation's event is durable; rejects when it could not be recorded (the store
   * failed, or a lost race decided it again as a refusal). The provider call may run meanwhile; nothing
   * reaches the client before it settles (serve step).
   */
  readonly recorded: Promise<void>;
}

export interface Reserved<Request extends EndpointRequest = EndpointRequest, Kind extends BodyKind = BodyKind> extends Admitted<Request, Kind> {
  readonly reservation: Reservation;
}

/** How a request's reservation ends: settled for its usage, released in full, cut off (key revoked) for what arrived, handed to a job, or never recorded. */
export type Closing =
  | { readonly kind: 'settle'; readonly usage: Usage }
  | { readonly kind: 'release'; readonly reason: ReleaseReason }
  | { readonly kind: 'cut_off'; readonly usage: Usage }
  /** Left open for the job the request started, which settles or releases it later (a video job). */
  | { readonly kind: 'handed_off' }
  /**
   * The reservation's event could not be recorded (the provider call, started meanwhile, was aborted):
   * nothing to close. An append whose commit is uncertain is expired at its deadline by the sweeper.
   */
  | { readonly kind: 'not_recorded' };

/** How the exchange with the provider ended: what the reservation becomes, and the error the client gets, if any. */
export interface ExchangeOutcome {
  readonly closing: Closing;
  readonly error?: unknown;
  /** How the provider failed, when it did. */
  readonly providerFailure?: ProviderFailureKind;
  /** Waiting for the provider: until its whole body arrived, or until its stream ended. */
  readonly providerMs: number;
  /** `performance.now()` when a stream's first event was written to the client. */
  readonly firstEventAt?: number;
  /** The model and deployment whose answer closes the request (none when nothing answered, or a job took it). */
  readonly answered?: Answered;
}

export interface Served<Request extends EndpointRequest = EndpointRequest, Kind extends BodyKind = BodyKind> extends Reserved<Request, Kind> {
  readonly outcome: ExchangeOutcome;
}

export interface Closed<Request extends EndpointRequest = EndpointRequest, Kind extends BodyKind = BodyKind> extends Served<Request, Kind> {
  /** What the reservation was closed on: the charge, 0 for a release. */
  readonly cost: Nanodollars;
}

/** What an attempt answered with: the request is charged at its price, and its settle names it. */
export interface Answered {
  readonly candidate: PricedCandidate;
  /** Attempts the request made in all, this one included. */
  readonly attempts: number;
}

/** Any stage: what the request log and the metrics read from the last one reached. */
export type Stage = Received & Partial<Omit<Closed, keyof Received>>;
