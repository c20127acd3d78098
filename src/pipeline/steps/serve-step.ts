import type { BodyKind, EndpointRequest, EndpointSpec, Exchange, StreamReply } from '../../endpoints/endpoint-spec.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { isJsonObject, type JsonObject } from '../../formats/json-value.js';
import { createUsage } from '../../billing/usage.js';
import { headerValue, type ClientConnection } from '../client-connection.js';
import { KEY_REVOKED } from '../in-flight-requests.js';
import type { PipelineDependencies } from '../pipeline-dependencies.js';
import { failureOfError, failureOfStatus, failureOfStream } from '../provider-failure-kind.js';
import { callWithAttempts } from '../attempts.js';
import type { PricedCandidate } from '../candidates.js';
import type { DeploymentHealth } from '../deployment-health.js';
import type { ExchangeOutcome, Reserved, Served } from '../request-stages.js';

/** Time spent waiting for the provider, for the request log: the gateway's own time is the rest. */
class ProviderClock {
  private readonly started = performance.now();
  private ended: number | undefined;
  stop(): void {
    this.ended ??= performance.now();
  }
  elapsedMs(): number {
    return (this.ended ?? performance.now()) - this.started;
  }
}

const CLIENT_GONE = 'client_disconnected';
const NOT_RECORDED = 'reservation_not_recorded';

/** The reservation's event could not be recorded: the provider call is aborted and the client gets what the store's failure says (a 503). */
class ReservationNotRecorded extends Error {
  constructor(readonly reason: unknown) {
    super('the reservation could not be recorded', { cause: reason });
  }
}

type Ending = Omit<ExchangeOutcome, 'providerMs'>;

/**
 * From the reserve on (DESIGN 5): call the provider and answer the client. This is the one place that
 * knows how an exchange can end and what each way costs, said in the outcome the close step acts on:
 * - answered: settled for the usage (a stream also when it broke off: it is charged for what arrived), at
 *   the price of the model and deployment that answered, after whatever retries and fallbacks it took;
 * - the provider's own error (passed back as it is) or a failure before any answer: released in full;
 * - the client went away: a stream is settled for what arrived, anything else released (`cancelled`);
 * - the key was revoked meanwhile: cut off, charged for what arrived, and the client gets `key_revoked`;
 * - a job was started with the reservation (a video job): left open for the job, which settles it later.
 * Never throws: every failure becomes an outcome, so that the reservation is always closed.
 */
export async function serveStep<Request extends EndpointRequest, Kind extends BodyKind>(
  deps: Pick<PipelineDependencies, 'inFlight' | 'providers' | 'deploymentHealth'>,
  stage: Reserved<Request, Kind>,
): Promise<Served<Request, Kind>> {
  const { spec, connection, reservation, model } = stage;
  const controller = new AbortController();
  const untrack = deps.inFlight.track(reservation.owner.keyId, controller);
  // The client's disconnect aborts the provider call (and a stream is then settled for what was produced).
  const stopWatching = connection.onClientGone(() => controller.abort(CLIENT_GONE));
  const exchange: Exchange<Request, Kind> = {
    request: stage.request,
    body: stage.body,
    model,
    estimate: stage.estimate,
    price: stage.price,
    requestId: reservation.reservationId,
    caller: { orgId: reservation.orgId, keyId: reservation.owner.keyId },
    created: Math.floor(stage.now.getTime() / 1000),
    header: (name) => headerValue(connection, name),
    signal: controller.signal,
    providers: deps.providers,
    revoked: () => controller.signal.aborted && controller.signal.reason === KEY_REVOKED,
  };
  const providerClock = new ProviderClock();
  let stream: (StreamReply & { readonly firstEventAt: number | undefined }) | undefined;
  const openStream = () => (stream = connection.openStream());
  let ending: Ending;
  try {
    ending = await exchangeWithProvider(spec, exchange, stage.priced, deps.deploymentHealth, connection, openStream, providerClock, () => recordedOrAbort(reservation.recorded, controller));
  } catch (error) {
    ending = failed(error, controller.signal);
  } finally {
    stopWatching();
    untrack();
  }
  // the client's time to first byte (the metrics) counts from the first event, also of a stream that then failed
  return { ...stage, outcome: { ...ending, providerMs: providerClock.elapsedMs(), firstEventAt: stream?.firstEventAt } };
}

async function exchangeWithProvider<Request extends EndpointRequest, Kind extends BodyKind>(
  spec: EndpointSpec<Request, Kind>,
  requested: Exchange<Request, Kind>,
  priced: readonly PricedCandidate[],
  health: DeploymentHealth,
  connection: ClientConnection,
  openStream: () => StreamReply,
  providerClock: ProviderClock,
  recorded: () => Promise<void>,
): Promise<Ending> {
  if (spec.settles === 'by_job') {
    // the job settles or releases the reservation, so it starts only on a recorded one; the request answers with the job's record at once
    await recorded();
    connection.sendJson(200, await spec.handOff(requested));
    return { closing: { kind: 'handed_off' } };
  }
  // The provider is called while the reservation's event commits (its first byte hides the commit), and
  // nothing of its answer reaches the client before the reservation is recorded. The call is the
  // deployments of the model and of its fallbacks, with retries (src/pipeline/attempts.ts); the exchange
  // from here on is the answering attempt's: its model and price are the ones that answered.
  const call = callWithAttempts(spec, requested, priced, health);
  call.catch(() => undefined); // read below, once the reservation is recorded
  try {
    await recorded();
  } catch (error) {
    void call.then(({ answer }) => answer.type === 'stream' && answer.events.cancel(), () => undefined);
    throw error;
  }
  const { answer, exchange, answered } = await call;
  if (answer.type === 'body') {
    providerClock.stop(); // the whole body has arrived
    if (answer.status >= 400) {
      // Spec 7.3.2: the provider's own error, as it is (status, body, Retry-After): a 4xx at once, a
      // 429 or 5xx once every attempt failed (the last one's)
      connection.sendProviderAnswer(answer.status, answer.headers, answer.body);
      return { closing: { kind: 'release', reason: 'provider_error' }, providerFailure: failureOfStatus(answer.status) };
    }
    const reply = spec.answer(exchange, parseProviderJson(answer.body));
    const { usage } = reply;
    // Revoked after the whole answer arrived: the client does not get it, but the provider's work is paid.
    if (exchange.revoked()) return { closing: { kind: 'cut_off', usage }, error: new GatewayError('key_revoked'), answered };
    if ('text' in reply) connection.sendText(200, reply.contentType, reply.text);
    else connection.sendJson(200, reply.body);
    return { closing: { kind: 'settle', usage }, answered };
  }
  if (!spec.stream) {
    answer.events.cancel();
    throw new GatewayError('provider_error', 'the provider answered with an event stream where a JSON body was expected');
  }
  const usage = await spec.stream(exchange, answer.events, openStream());
  providerClock.stop(); // the gateway's work on a stream overlaps the provider's; counted as the provider's
  // the endpoint ends a broken stream with its format's error event and settles what arrived
  return { closing: exchange.revoked() ? { kind: 'cut_off', usage } : { kind: 'settle', usage }, providerFailure: failureOfStream(answer.events.failure), answered };
}

/** Waits for the reservation to be recorded; when it cannot be, aborts the provider call. */
async function recordedOrAbort(recorded: Promise<void>, controller: AbortController): Promise<void> {
  try {
    await recorded;
  } catch (error) {
    controller.abort(NOT_RECORDED);
    throw new ReservationNotRecorded(error);
  }
}

/** A failure before or while answering, with nothing received that could be charged. */
function failed(error: unknown, signal: AbortSignal): Ending {
  // nothing was reserved on record: nothing to close, and the client gets the reserve's own error (a 503, a 402)
  if (error instanceof ReservationNotRecorded) return { closing: { kind: 'not_recorded' }, error: error.reason };
  if (signal.aborted && signal.reason === KEY_REVOKED) return { closing: { kind: 'cut_off', usage: createUsage() }, error: new GatewayError('key_revoked') };
  // the client has left: there is nobody to answer, and its leaving is not a fault of the gateway's
  if (signal.aborted) return { closing: { kind: 'release', reason: 'cancelled' } };
  return { closing: { kind: 'release', reason: 'provider_error' }, error, providerFailure: failureOfError(error) };
}

function parseProviderJson(body: Buffer): JsonObject {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (isJsonObject(value)) return value;
  } catch {
    // fall through
  }
  throw new GatewayError('provider_error', 'the provider answered with a body that is not JSON');
}
