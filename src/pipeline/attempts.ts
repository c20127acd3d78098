import { BrokenCircuitError, ExponentialBackoff, handleWhen, retry, type IBackoff, type IBackoffFactory, type IRetryBackoffContext } from 'cockatiel';
import { servedBy } from '../catalog/catalog-deployments.js';
import type { AnsweringEndpointSpec, BodyKind, EndpointRequest, Exchange } from '../endpoints/endpoint-spec.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ProviderBodyResponse, ProviderResponse } from '../providers/provider-client.js';
import type { PricedCandidate } from './candidates.js';
import { DeploymentFailure, type DeploymentHealth } from './deployment-health.js';
import { failureOfError } from './provider-failure-kind.js';
import type { Answered } from './request-stages.js';

/** A provider's answer that is worth trying again elsewhere or later: 429 (rate limited) or any 5xx. */
export const isRetryableStatus = (status: number) => status === 429 || status >= 500;

/** The provider answered 429 or 5xx: kept, so that when every attempt failed the client gets the last one as it is. */
class FailedAnswer extends DeploymentFailure {
  constructor(
    readonly answer: ProviderBodyResponse,
    /** The wait its Retry-After asks for, in milliseconds (0 without one). */
    readonly retryAfterMs: number,
  ) {
    super(`the provider answered ${answer.status}`);
  }
}

/** No answer at all (connection refused or reset, no status line in time): the transport's error kept. */
class NoAnswer extends DeploymentFailure {
  constructor(readonly error: unknown) {
    super('the provider could not be reached');
  }
}

/** Every deployment of the model has failed in this request or cools down: its fallbacks are next. */
class NoDeploymentLeft extends Error {}

export interface AttemptsResult<Request, Kind extends BodyKind> {
  /** The answer to serve: a 2xx, a 4xx (never retried), or the last 429/5xx when every attempt failed. */
  readonly answer: ProviderResponse;
  /** The exchange of the attempt that gave it (its model is the deployment's view, its price the candidate's). */
  readonly exchange: Exchange<Request, Kind>;
  readonly answered: Answered;
}

/**
 * Calls the provider for a request with its candidates (deployments of the requested model, then of its
 * fallbacks), until one gives an answer that is not a 429 or a 5xx:
 * - within a model, the deployment is chosen by weight among those that have not failed in this request
 *   and are not cooling down (each failure counts against the deployment's breaker, DeploymentHealth);
 * - a 429, a 5xx or no answer is retried (cockatiel's retry: exponential backoff with decorrelated jitter),
 *   up to the model's `max_attempts` and no attempt started after its `budget_ms`; a 4xx is the client's
 *   and is served as it is. A Retry-After is honoured when the retry can only go to the deployment that
 *   sent it (it is waited for, or the model is given up when it would end past the budget);
 * - a model whose deployments are all spent leaves the request to the next fallback.
 * Only the provider's answer before it starts is retried: a stream that has begun is never sent twice.
 * Throws the last transport error when nothing answered. When every candidate cools down, the request
 * goes once to the one that recovers first (`lastResort`).
 */
export async function callWithAttempts<Request extends EndpointRequest, Kind extends BodyKind>(
  spec: AnsweringEndpointSpec<Request, Kind>,
  exchange: Exchange<Request, Kind>,
  priced: readonly PricedCandidate[],
  health: DeploymentHealth,
  random: () => number = Math.random,
): Promise<AttemptsResult<Request, Kind>> {
  let attempts = 0;
  let last: { failure: DeploymentFailure; candidate: PricedCandidate; exchange: Exchange<Request, Kind> } | undefined;
  for (const [index, group] of groupByModel(priced).entries()) {
    const { model } = group[0]!;
    const rules = model.retry;
    const deadline = Date.now() + rules.budgetMs;
    const failedHere = new Set<string>();
    const fresh = () => group.filter(({ deployment }) => !failedHere.has(deployment.id) && !health.isCoolingDown(deployment, rules));
    // Retry-After binds the deployment that sent it: waited for only when the retry can go nowhere else
    const waitFor = (error: unknown) => (error instanceof FailedAnswer && fresh().length === 0 ? error.retryAfterMs : 0);
    const policy = retry(
      handleWhen((error) => error instanceof DeploymentFailure && Date.now() + waitFor(error) < deadline),
      { maxAttempts: rules.maxAttempts - 1, backoff: new RetryAfterBackoff(new ExponentialBackoff({ initialDelay: rules.initialBackoffMs, maxDelay: rules.maxBackoffMs }), waitFor) },
    );
    try {
      return await policy.execute(async () => {
        if (exchange.signal.aborted) throw exchange.signal.reason;
        const candidate = pickByWeight(fresh().length > 0 ? fresh() : group.filter(({ deployment }) => !health.isCoolingDown(deployment, rules)), random);
        if (!candidate) throw new NoDeploymentLeft();
        attempts++;
        const attempt: Exchange<Request, Kind> = { ...exchange, model: servedBy(candidate.model, candidate.deployment), price: candidate.price };
        try {
          const answer = await health.call(candidate.deployment, model.id, rules, { retry: attempts > 1, fallback: index > 0 }, () => callOnce(spec, attempt));
          return { answer, exchange: attempt, answered: { candidate, attempts } };
        } catch (error) {
          const failure = error instanceof BrokenCircuitError ? new NoAnswer(error) : error;
          if (failure instanceof DeploymentFailure) {
            failedHere.add(candidate.deployment.id);
            if (!(error instanceof BrokenCircuitError) || !last) last = { failure, candidate, exchange: attempt };
          }
          throw failure;
        }
      }, exchange.signal);
    } catch (error) {
      if (!(error instanceof DeploymentFailure) && !(error instanceof NoDeploymentLeft)) throw error;
    }
  }
  if (!last) return lastResort(spec, exchange, priced, health);
  const { failure, candidate } = last;
  if (failure instanceof FailedAnswer) return { answer: failure.answer, exchange: last.exchange, answered: { candidate, attempts } };
  throw (failure as NoAnswer).error;
}

/** One call: a 429 or a 5xx, or no answer, is a `DeploymentFailure`; the client leaving is not. */
async function callOnce<Request extends EndpointRequest, Kind extends BodyKind>(spec: AnsweringEndpointSpec<Request, Kind>, exchange: Exchange<Request, Kind>): Promise<ProviderResponse> {
  let answer: ProviderResponse;
  try {
    answer = await spec.call(exchange);
  } catch (error) {
    const kind = exchange.signal.aborted ? undefined : failureOfError(error);
    if (kind === 'connection' || kind === 'timeout') throw new NoAnswer(error);
    throw error;
  }
  if (answer.type === 'body' && isRetryableStatus(answer.status)) throw new FailedAnswer(answer, retryAfterMs(answer.headers.retryAfter));
  if (answer.type === 'stream' && isRetryableStatus(answer.status)) {
    answer.events.cancel();
    throw new NoAnswer(new GatewayError('provider_error', `the provider answered ${answer.status}`));
  }
  return answer;
}

/** A deployment drawn by weight (the catalog's `weight`: 3 and 1 send three requests in four to the first). */
export function pickByWeight(pool: readonly PricedCandidate[], random: () => number): PricedCandidate | undefined {
  const total = pool.reduce((sum, { deployment }) => sum + deployment.weight, 0);
  let draw = random() * total;
  for (const candidate of pool) {
    draw -= candidate.deployment.weight;
    if (draw < 0) return candidate;
  }
  return pool.at(-1);
}

function groupByModel(priced: readonly PricedCandidate[]): PricedCandidate[][] {
  const groups = new Map<string, PricedCandidate[]>();
  for (const candidate of priced) {
    const group = groups.get(candidate.model.id) ?? [];
    group.push(candidate);
    groups.set(candidate.model.id, group);
  }
  return [...groups.values()];
}

/** Retry-After as milliseconds: seconds, or an HTTP date; 0 when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number {
  if (value === undefined) return 0;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? 0 : Math.max(0, at - now);
}

/** The exponential backoff with jitter, lengthened to the Retry-After the failure asks for, when it binds. */
class RetryAfterBackoff implements IBackoffFactory<IRetryBackoffContext<unknown>> {
  constructor(
    private readonly jitter: IBackoffFactory<unknown>,
    private readonly waitFor: (error: unknown) => number,
  ) {}

  next(context: IRetryBackoffContext<unknown>): IBackoff<IRetryBackoffContext<unknown>> {
    const step = this.jitter.next(context);
    const error = 'error' in context.result ? context.result.error : undefined;
    const duration = Math.max(step.duration, this.waitFor(error));
    return { duration, next: (following) => new RetryAfterBackoff(step, this.waitFor).next(following) };
  }
}

/**
 * Every candidate cools down: the request is still sent, once, to the one whose cooldown ends first (a
 * cooldown moves traffic to where it may succeed; with nowhere else to go, the client gets the provider's
 * own answer, as it would without cooldowns, rather than an error of the gateway's).
 */
async function lastResort<Request extends EndpointRequest, Kind extends BodyKind>(
  spec: AnsweringEndpointSpec<Request, Kind>,
  exchange: Exchange<Request, Kind>,
  priced: readonly PricedCandidate[],
  health: DeploymentHealth,
): Promise<AttemptsResult<Request, Kind>> {
  const recovering = health.soonestRecovery(priced.map(({ deployment, model }) => ({ deployment, rules: model.retry })));
  const candidate = priced.find(({ deployment, model }) => health.soonestRecovery([{ deployment, rules: model.retry }]) === recovering) ?? priced[0]!;
  const attempt: Exchange<Request, Kind> = { ...exchange, model: servedBy(candidate.model, candidate.deployment), price: candidate.price };
  try {
    const answer = await health.callPast(candidate.deployment, candidate.model.id, () => callOnce(spec, attempt));
    return { answer, exchange: attempt, answered: { candidate, attempts: 1 } };
  } catch (error) {
    if (error instanceof FailedAnswer) return { answer: error.answer, exchange: attempt, answered: { candidate, attempts: 1 } };
    if (error instanceof NoAnswer) throw error.error;
    throw error;
  }
}
