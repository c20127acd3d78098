import type { LimitPair } from '../../access/access-events.js';
import type { AccessDirectory } from '../../access/access-directory.js';
import type { CatalogModel } from '../../catalog/catalog.js';
import type { Clock } from '../../clock.js';
import type { BodyKind, EndpointRequest } from '../../endpoints/endpoint-spec.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ConcurrencyCaps, ReserveLimits, SpendLimits } from '../../ledger/account-decider.js';
import type { SpendOwner } from '../../ledger/account-events.js';
import type { Accounts } from '../../ledger/accounts.js';
import { formatUsd } from '../../billing/money.js';
import { keyAllowsModel, reauthenticate, type Caller } from '../authenticate.js';
import type { PipelineDependencies } from '../pipeline-dependencies.js';
import type { AppliedPrice } from '../../prices/applied-price.js';
import { servingWindowMs } from '../candidates.js';
import { correctRateLimit } from '../rate-limit-correction.js';
import type { Admitted, Reservation, Reserved } from '../request-stages.js';
import { RateLimitRefusal } from './admit-step.js';

/** How long past the provider's own timeout (and the retry budgets) a reservation may stay open before the sweeper expires it. */
const DEADLINE_MARGIN_MS = 60_000;

export interface ReserveInput {
  readonly requestId: string;
  /** The endpoint's short name, recorded with the reserve for the request log. */
  readonly endpoint: string;
  readonly caller: Caller;
  readonly model: CatalogModel;
  readonly amount: bigint;
  /** The price the amount was worked out at, recorded with the reserve (its close is charged at it). */
  readonly price: Pick<AppliedPrice, 'version' | 'serviceTier'>;
  /** Appends to a 402's message on endpoints with an output cap (spec: a smaller cap lowers the reserve). */
  readonly capHint: string | undefined;
  /** How long the reservation may stay open before the sweeper may expire it. */
  readonly lifetimeMs: number;
  /** The instance whose request holds it; null when a job does (a video job's reservation outlives the request). */
  readonly heldBy: string | null;
}

/**
 * The reserve (spec 8): the request's money is reserved in one decision of the account, the balance and
 * every limit (`402`), and a slot of the key's and the organization's concurrency caps (`429`). Refused, nothing was used: the admission is given back, so that a 402 does not turn
 * the next request into a 429.
 */
export async function reserveStep<Request extends EndpointRequest, Kind extends BodyKind>(
  deps: Pick<PipelineDependencies, 'accounts' | 'directory' | 'clock' | 'rateLimiter' | 'counters' | 'logger' | 'instanceId'>,
  stage: Admitted<Request, Kind>,
): Promise<Reserved<Request, Kind>> {
  const { requestId, caller, model, amount, price, spec } = stage;
  try {
    // a request's reservation lives as long as its provider call may; a job's, as long as the job may
    const lifetimeMs = spec.settles === 'by_job' ? spec.reservationLifetimeMs : servingWindowMs(stage.priced) + DEADLINE_MARGIN_MS;
    const heldBy = spec.settles === 'by_job' ? null : (deps.instanceId ?? null);
    const reservation = await reserveFunds(deps.accounts, deps.directory, deps.clock, { requestId, endpoint: spec.name, caller, model, amount, price, capHint: spec.capHint, lifetimeMs, heldBy });
    return { ...stage, reservation };
  } catch (error) {
    correctRateLimit(deps, caller.key.keyId, requestId, 0);
    throw error;
  }
}

/**
 * Reserves the request's money in one decision of the account (balance and every limit). When the
 * account says this instance decided on older access data (a key revoked or re-limited through another
 * instance, see the access fence), the key and organization are read again, authentication and
 * permissions are checked again, and the reserve is retried.
 */
export async function reserveFunds(accounts: Accounts, directory: AccessDirectory, clock: Clock, input: ReserveInput): Promise<Reservation> {
  let caller = input.caller;
  for (let attempt = 0; attempt < 3; attempt++) {
    const { key, organization } = caller;
    const employee = key.employeeId ? organization.employees.get(key.employeeId) : undefined;
    const teamId = employee?.teamId ?? null;
    const owner: SpendOwner = { keyId: key.keyId, employeeId: key.employeeId, teamId, spaceId: caller.spaceId };
    const streams = directory.accessStreamsOf(key);
    const { decided, durable } = await accounts.executeEarly(
      organization.orgId,
      {
        type: 'ReserveFunds',
        reservationId: input.requestId,
        endpoint: input.endpoint,
        owner,
        model: input.model.id,
        category: input.model.category,
        amount: input.amount,
        price: { version: input.price.version, serviceTier: input.price.serviceTier },
        deadline: new Date(clock.now().getTime() + input.lifetimeMs),
        limits: limitsFor(caller, input.model),
        concurrency: concurrencyCapsOf(caller),
        accessRevisions: Object.fromEntries(streams.map((stream) => [stream, directory.revision(stream)])),
        heldBy: input.heldBy,
      },
      input.requestId,
    );
    if ('events' in decided.decision) {
      // reserved in memory; the provider may be called while the event commits (the serve step waits for it)
      const recorded = durable.then(({ decision }) => {
        if (!('events' in decision)) throw 'rejection' in decision ? refusalOf(decision.rejection, input) : accessChanged();
      });
      recorded.catch(() => undefined); // read by the serve step; a reserve refused after all must not warn before it is
      return { orgId: organization.orgId, reservationId: input.requestId, owner, amount: input.amount, caller, recorded };
    }
    const { decision } = await durable;
    if ('events' in decision) return { orgId: organization.orgId, reservationId: input.requestId, owner, amount: input.amount, caller, recorded: Promise.resolve() };
    if ('rejection' in decision) throw refusalOf(decision.rejection, input);
    await directory.refresh(decision.stale.map(({ stream }) => stream));
    caller = reauthenticate(caller, directory, clock.now());
    if (!keyAllowsModel(caller.key, input.model.id)) throw new GatewayError('model_not_allowed');
  }
  throw accessChanged();
}

function accessChanged(): GatewayError {
  return new GatewayError('service_unavailable', 'access rules kept changing during the request; retry it', { retryAfterSeconds: 1 });
}

/** The error a refused reserve answers: the only 429 the account gives is told apart in the metrics; a 402 says what was reserved. */
function refusalOf(refusal: GatewayError, input: ReserveInput): Error {
  if (refusal.code === 'rate_limit_exceeded') return new RateLimitRefusal('concurrency', refusal.message, refusal.retryAfterSeconds ?? 1);
  if (refusal.status === 402 && input.capHint) {
    return new GatewayError(refusal.code, `${refusal.message} (this request reserves ${formatUsd(input.amount)} USD; ${input.capHint})`);
  }
  return refusal;
}

function limitsFor(caller: Caller, model: CatalogModel): ReserveLimits {
  const { key, organization } = caller;
  const employee = key.employeeId ? organization.employees.get(key.employeeId) : undefined;
  const team = employee?.teamId ? organization.teams.get(employee.teamId) : undefined;
  return {
    key: spendLimits(key.limits.overall),
    keyByType: spendLimits(key.limits.byType[model.category]),
    keyByModel: spendLimits(key.limits.byModel[model.id]),
    employee: spendLimits(employee?.spendLimits),
    team: spendLimits(team?.spendLimits),
    organization: spendLimits(organization.spendLimits),
  };
}

function concurrencyCapsOf({ key, organization }: Caller): ConcurrencyCaps {
  return {
    ...(key.maxConcurrentRequests === null ? {} : { key: key.maxConcurrentRequests }),
    ...(organization.maxConcurrentRequests === null ? {} : { organization: organization.maxConcurrentRequests }),
  };
}

function spendLimits(pair: LimitPair | undefined): SpendLimits | undefined {
  if (!pair || (pair.daily === null && pair.monthly === null)) return undefined;
  return {
    ...(pair.daily === null ? {} : { daily: BigInt(pair.daily) }),
    ...(pair.monthly === null ? {} : { monthly: BigInt(pair.monthly) }),
  };
}
