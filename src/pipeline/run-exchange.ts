import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CatalogModel } from '../catalog/catalog.js';
import type { BodyKind, EndpointRequest, EndpointSpec, Exchange, RequestBodies, ReserveEstimate } from '../endpoints/endpoint-spec.js';
import { GatewayError } from '../errors/gateway-error.js';
import { isJsonObject, type JsonObject } from '../formats/json-value.js';
import { createUsage, rateLimitedTokens } from '../billing/usage.js';
import type { ProviderBodyResponse } from '../providers/provider-client.js';
import { KEY_REVOKED } from './in-flight-requests.js';
import { failureOfError, failureOfStatus, failureOfStream } from './provider-failure-kind.js';
import type { PipelineDependencies } from './pipeline-dependencies.js';
import type { Reservation } from './reserve-step.js';
import { correctRateLimit } from './rate-limit-correction.js';
import { closeReservation, type Closing } from './settle-step.js';
import { sendJson, sendText } from './json-reply.js';
import type { RequestRecord } from './request-context.js';
import { streamReply } from './stream-reply.js';

/** What the pipeline has decided about the request when the reservation is made. */
export interface ExchangeInput<Parsed, Kind extends BodyKind> {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** What the request log and the metrics learn about the request. */
  readonly record: RequestRecord;
  readonly request: Parsed;
  readonly body: RequestBodies[Kind];
  readonly model: CatalogModel;
  readonly estimate: ReserveEstimate;
  readonly reservation: Reservation;
  /** Unix seconds, from the pipeline's clock. */
  readonly created: number;
}

/** How the exchange ended: what the reservation becomes, and the error the client gets, if any. */
interface Outcome {
  readonly closing: Closing;
  readonly error?: unknown;
}

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

/**
 * From the reserve on (DESIGN 5): call the provider, answer, and close the reservation exactly once.
 * This is the one place that knows how a request can end and what each way costs:
 * - answered: settled for the usage (a stream also when it broke off: it is charged for what arrived);
 * - the provider's own error (passed back as it is) or a failure before any answer: released in full;
 * - the client went away: a stream is settled for what arrived, anything else released (`cancelled`);
 * - the key was revoked meanwhile: cut off, charged for what arrived, and the client gets `key_revoked`.
 */
export async function runExchange<Parsed extends EndpointRequest, Kind extends BodyKind>(
  spec: EndpointSpec<Parsed, Kind>,
  deps: PipelineDependencies,
  input: ExchangeInput<Parsed, Kind>,
): Promise<void> {
  const { req, res, record, model, reservation } = input;
  const controller = new AbortController();
  const untrack = deps.inFlight.track(reservation.owner.keyId, controller);
  // The client's disconnect aborts the provider call (and a stream is then settled for what was produced).
  const onClose = () => {
    if (!res.writableFinished) controller.abort(CLIENT_GONE);
  };
  res.on('close', onClose);
  const revoked = () => controller.signal.aborted && controller.signal.reason === KEY_REVOKED;
  const exchange: Exchange<Parsed, Kind> = {
    request: input.request,
    body: input.body,
    model,
    estimate: input.estimate,
    requestId: reservation.reservationId,
    created: input.created,
    header: (name) => firstValue(req.headers[name.toLowerCase()]),
    signal: controller.signal,
    providers: deps.providers,
    revoked,
  };
  let outcome: Outcome;
  const providerClock = new ProviderClock();
  try {
    outcome = await serve(spec, exchange, res, providerClock, record);
  } catch (error) {
    outcome = failed(error, controller.signal);
    if (!controller.signal.aborted) record.providerFailure = failureOfError(error);
  } finally {
    res.off('close', onClose);
    untrack();
  }
  const cost = await closeReservation(deps.accounts, model, reservation, outcome.closing, deps.logger);
  Object.assign(record, { closing: outcome.closing, cost, providerMs: providerClock.elapsedMs() });
  correctRateLimit(deps, reservation.owner.keyId, reservation.reservationId, outcome.closing.kind === 'release' ? 0 : rateLimitedTokens(outcome.closing.usage));
  if (outcome.error !== undefined) throw outcome.error;
}

async function serve<Parsed extends EndpointRequest, Kind extends BodyKind>(
  spec: EndpointSpec<Parsed, Kind>,
  exchange: Exchange<Parsed, Kind>,
  res: ServerResponse,
  providerClock: ProviderClock,
  record: RequestRecord,
): Promise<Outcome> {
  const answer = await spec.call(exchange);
  if (answer.type === 'body') {
    providerClock.stop(); // the whole body has arrived
    if (answer.status >= 400) {
      record.providerFailure = failureOfStatus(answer.status);
      // Spec 7.3.2: the provider's own error, as it is (status, body, Retry-After).
      sendProviderError(res, answer);
      return { closing: { kind: 'release', reason: 'provider_error' } };
    }
    const reply = spec.answer(exchange, parseProviderJson(answer.body));
    const { usage } = reply;
    // Revoked after the whole answer arrived: the client does not get it, but the provider's work is paid.
    if (exchange.revoked()) return { closing: { kind: 'cut_off', usage }, error: new GatewayError('key_revoked') };
    if ('text' in reply) sendText(res, 200, reply.contentType, reply.text);
    else sendJson(res, 200, reply.body);
    return { closing: { kind: 'settle', usage } };
  }
  if (!spec.stream) {
    answer.events.cancel();
    throw new GatewayError('provider_error', 'the provider answered with an event stream where a JSON body was expected');
  }
  const usage = await spec.stream(exchange, answer.events, streamReply(res, record));
  providerClock.stop(); // the gateway's work on a stream overlaps the provider's; counted as the provider's
  // the endpoint ends a broken stream with its format's error event and settles what arrived
  record.providerFailure = failureOfStream(answer.events.failure);
  return { closing: exchange.revoked() ? { kind: 'cut_off', usage } : { kind: 'settle', usage } };
}

/** A failure before or while answering, with nothing received that could be charged. */
function failed(error: unknown, signal: AbortSignal): Outcome {
  if (signal.aborted && signal.reason === KEY_REVOKED) return { closing: { kind: 'cut_off', usage: createUsage() }, error: new GatewayError('key_revoked') };
  // the client has left: there is nobody to answer, and its leaving is not a fault of the gateway's
  if (signal.aborted) return { closing: { kind: 'release', reason: 'cancelled' } };
  return { closing: { kind: 'release', reason: 'provider_error' }, error };
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

function firstValue(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

function sendProviderError(res: ServerResponse, answer: ProviderBodyResponse): void {
  res.statusCode = answer.status;
  res.setHeader('Content-Type', answer.headers.contentType ?? 'application/json');
  if (answer.headers.retryAfter) res.setHeader('Retry-After', answer.headers.retryAfter);
  res.end(answer.body);
}
