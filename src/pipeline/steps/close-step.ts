import type { Pricing } from '../../catalog/catalog.js';
import { chargeOf } from '../../catalog/pricing.js';
import type { BodyKind, EndpointRequest } from '../../endpoints/endpoint-spec.js';
import type { AnsweredCharge } from '../../ledger/account-decider.js';
import type { Accounts } from '../../ledger/accounts.js';
import type { Logger } from '../../logger.js';
import type { Nanodollars } from '../../billing/money.js';
import { rateLimitedTokens, withPiiMasking, type Usage } from '../../billing/usage.js';
import { isConnectionFailure } from '../../errors/connection-failure.js';
import type { PipelineDependencies } from '../pipeline-dependencies.js';
import { correctRateLimit } from '../rate-limit-correction.js';
import type { Answered, Closed, Closing, Reservation, Served } from '../request-stages.js';

/**
 * The last step: the reservation is closed exactly once, as the exchange ended (`ReservationSettled`,
 * `ReservationReleased` or `ReservationCutOff`), charged at the price of the model and deployment that
 * answered (the reserve covered the dearest of them; the settle event names the one that answered), and the key's tokens per minute are corrected from the
 * admission's estimate to the tokens really used (none for a release). A masked request that is charged
 * (settled or cut off) is charged its masking too; a released one costs nothing, masking included.
 */
export async function closeStep<Request extends EndpointRequest, Kind extends BodyKind>(
  deps: Pick<PipelineDependencies, 'accounts' | 'logger' | 'rateLimiter' | 'counters'>,
  stage: Served<Request, Kind>,
): Promise<Closed<Request, Kind>> {
  const { price, reservation, outcome, masking } = stage;
  // a job closes its own reservation; the admission keeps counting the request's estimate
  if (outcome.closing.kind === 'handed_off') return { ...stage, cost: 0n };
  // no reservation was recorded, so none is closed; nothing was served, so the admission is given back
  if (outcome.closing.kind === 'not_recorded') {
    correctRateLimit(deps, reservation.owner.keyId, reservation.reservationId, 0);
    return { ...stage, cost: 0n };
  }
  const closing = masking === 'applied' && outcome.closing.kind !== 'release' ? { ...outcome.closing, usage: withPiiMasking(outcome.closing.usage) } : outcome.closing;
  // charged at the price of the model and deployment that answered (the requested one's when no other did)
  const answered = outcome.answered && answeredCharge(outcome.answered);
  const pricing = outcome.answered ? outcome.answered.candidate.price.pricing : price.pricing;
  const cost = await closeOnAccount(deps.accounts, pricing, reservation, closing, deps.logger, answered);
  correctRateLimit(deps, reservation.owner.keyId, reservation.reservationId, closing.kind === 'release' ? 0 : rateLimitedTokens(closing.usage));
  return { ...stage, cost };
}

/**
 * Closes the reservation on the account: settles the real cost, releases it in full, or cuts it off. A
 * store that cannot be reached is waited for (backing off to a try every two seconds, for up to a minute),
 * so a settlement interrupted by a short outage still lands once the store is back; any other failure is
 * tried three times. If it still fails, the reservation is left to the sweeper, which expires it at its
 * deadline (the money returns to the organization; the loss is ours, never the client's).
 */
const STORE_OUTAGE_PATIENCE_MS = 60_000;
const MAX_BACKOFF_MS = 2_000;

/** Who answered, as the settle event records it: the model, the deployment, the attempts and the price's entry and version. */
function answeredCharge({ candidate, attempts }: Answered): AnsweredCharge {
  const { model, deployment, price } = candidate;
  return { model: model.id, deployment: deployment.id, attempts, price: { of: deployment.priceKey, version: price.version, serviceTier: price.serviceTier } };
}

/** What a request is charged for its usage at its price: the masking fee and the split by kind recorded apart. */
function charge(pricing: Pricing, usage: Usage) {
  return { ...chargeOf(pricing, usage), usage };
}

/** Returns the cost charged (0 for a release, and when the close was left to the sweeper). */
export async function closeOnAccount(
  accounts: Accounts,
  pricing: Pricing,
  reservation: Reservation,
  closing: Exclude<Closing, { kind: 'handed_off' } | { kind: 'not_recorded' }>,
  logger: Logger,
  answered?: AnsweredCharge,
): Promise<Nanodollars> {
  const { orgId, reservationId } = reservation;
  const command =
    closing.kind === 'release'
      ? ({ type: 'ReleaseReservation', reservationId, reason: closing.reason } as const)
      : closing.kind === 'settle'
        ? ({ type: 'SettleReservation', reservationId, ...charge(pricing, closing.usage), ...(answered ? { answered } : {}) } as const)
        : ({ type: 'CutOffReservation', reservationId, ...charge(pricing, closing.usage), ...(answered ? { answered } : {}) } as const);
  const giveUpAt = Date.now() + STORE_OUTAGE_PATIENCE_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      await accounts.execute(orgId, command, reservationId);
      return command.type === 'ReleaseReservation' ? 0n : command.cost;
    } catch (error) {
      const waiting = isConnectionFailure(error) && Date.now() < giveUpAt;
      if (!waiting && attempt >= 3) {
        logger.error({ err: error, reservationId, orgId }, 'could not close a reservation; the sweeper will expire it');
        return 0n;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** (attempt - 1), MAX_BACKOFF_MS)));
    }
  }
}
