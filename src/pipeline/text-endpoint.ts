import type { Request, RequestHandler, Response } from 'express';
import type { CatalogModel } from '../catalog/catalog.js';
import { estimateInputTokens, textReserve } from '../catalog/reserve-estimate.js';
import { CostAccumulator } from '../billing/money.js';
import { createUsage } from '../billing/usage.js';
import { GatewayError } from '../errors/gateway-error.js';
import { errorFromGatewayError } from '../formats/canonical/canonical-error.js';
import type { CanonicalRequest } from '../formats/canonical/canonical-request.js';
import type { FormatName } from '../formats/canonical/format-name.js';
import { formatCodecs } from '../formats/format-codecs.js';
import { isJsonObject, type JsonObject } from '../formats/json-value.js';
import { passThroughRequest, passThroughResponse } from '../formats/pass-through.js';
import type { SseEvent } from '../formats/sse-event.js';
import { createClientStream, translateRequest, translateResponse } from '../formats/translate.js';
import { parseJsonObject } from '../http/body-reader.js';
import { requestContext } from '../http/request-context.js';
import { ProviderStreamError } from '../providers/provider-stream-error.js';
import type { ProviderBodyResponse } from '../providers/provider-client.js';
import { providerAdapter } from '../providers/provider-registry.js';
import { authenticate, keyAllowsModel } from './authenticate.js';
import { KEY_REVOKED } from './in-flight-requests.js';
import type { PipelineDependencies } from './pipeline-dependencies.js';
import { piiMaskingFor } from './pii-header.js';
import { reserveFunds, type Reservation } from './reserve-step.js';
import { closeReservation, countedResponseUsage, streamSettlementUsage, usageRecord, type Closing } from './settle-step.js';
import { startEventStream, writeEvents } from './sse-response.js';

/**
 * The request pipeline for the three text formats (DESIGN.md section 5):
 * authenticate → parse + validate → resolve model + category → permissions → admit → reserve →
 * call provider → settle → respond. Nothing before the reserve costs anything; from the reserve on,
 * every way out closes the reservation exactly once (settled, released, or cut off).
 */
const CAP_HINTS: Record<FormatName, string | undefined> = {
  chat: 'a smaller max_tokens or max_completion_tokens lowers the reserve',
  responses: 'a smaller max_output_tokens lowers the reserve',
  // spec 7.3.1: on the messages endpoint the 402 message text is exact
  messages: undefined,
};

export function textEndpoint(format: FormatName, deps: PipelineDependencies): RequestHandler {
  return async (req, res) => {
    const context = requestContext(res);
    if (format === 'messages') context.errorStyle = 'messages';
    res.setHeader('X-PII-Masking', 'off');
    const now = deps.clock.now();

    const caller = authenticate(req.headers, deps.directory, now);
    res.setHeader('X-PII-Masking', piiMaskingFor(req.headers, caller.organization));
    const body = parseJsonObject(context.body ?? Buffer.alloc(0)) as JsonObject;
    const request = formatCodecs[format].parseRequest(body);
    const model = deps.catalog.findModel(request.model);
    if (!model) throw new GatewayError('model_not_found', `model ${request.model} is not in the catalog`, { param: 'model' });
    checkCategory(format, model);
    if (!keyAllowsModel(caller.key, model.id)) throw new GatewayError('model_not_allowed', `this API key may not use ${model.id}`);

    const inputTokens = estimateInputTokens(body);
    const admission = await deps.rateLimiter.admit(caller.key.keyId, context.requestId, inputTokens + (request.maxOutputTokens ?? 0), {
      requestsPerMinute: caller.key.rpm,
      tokensPerMinute: caller.key.tpm,
    });
    if (!admission.allowed) {
      throw new GatewayError('rate_limit_exceeded', `more than ${admission.reason === 'requests' ? `${caller.key.rpm} requests` : `${caller.key.tpm} tokens`} per minute for this key`, {
        retryAfterSeconds: Math.ceil(admission.retryAfterMs / 1000),
      });
    }

    const reservation = await reserveFunds(deps.accounts, deps.directory, deps.clock, {
      requestId: context.requestId,
      headers: req.headers,
      caller,
      model,
      amount: model.category === 'image' ? imageReserve(model) : textReserve(model, inputTokens, request.maxOutputTokens),
      capHint: CAP_HINTS[format],
    });
    await callAndRespond(deps, { req, res, format, body, request, model, reservation, inputTokens, created: Math.floor(now.getTime() / 1000) });
  };
}

interface Exchange {
  readonly req: Request;
  readonly res: Response;
  readonly format: FormatName;
  readonly body: JsonObject;
  readonly request: CanonicalRequest;
  readonly model: CatalogModel;
  readonly reservation: Reservation;
  readonly inputTokens: number;
  readonly created: number;
}

async function callAndRespond(deps: PipelineDependencies, exchange: Exchange): Promise<void> {
  const { req, res, format, body, request, model, reservation, inputTokens } = exchange;
  const controller = new AbortController();
  const untrack = deps.inFlight.track(reservation.owner.keyId, controller);
  // The client's disconnect aborts the provider call (and a stream is then settled for what was produced).
  const onClose = () => {
    if (!res.writableFinished) controller.abort('client_disconnected');
  };
  res.on('close', onClose);
  let closing: Closing = { kind: 'release', reason: 'provider_error' };
  try {
    const providerFormat = model.provider.formats.includes(format) ? format : model.provider.formats[0]!;
    const upstream =
      providerFormat === format
        ? passThroughRequest(format, body, { model: model.upstream, dropParams: model.dropParams }).body
        : translateRequest(request, providerFormat, { model: model.upstream, maxOutputTokensFallback: model.maxOutputTokens, dropParams: model.dropParams }).body;
    const adapter = providerAdapter(model.provider.kind);
    const path = adapter.path(providerFormat);
    if (!path) throw new GatewayError('provider_error', `provider ${model.provider.name} does not speak ${providerFormat}`);
    const beta = req.get('anthropic-beta');
    const result = await deps.providers.call({
      provider: model.provider,
      path,
      body: JSON.stringify(upstream),
      ...(beta && model.provider.kind === 'anthropic' ? { headers: { 'anthropic-beta': beta } } : {}),
      signal: controller.signal,
      stream: request.stream,
    });
    const identity = { requestId: exchange.reservation.reservationId, model: model.id, created: exchange.created };
    if (result.type === 'body') {
      if (result.status >= 400) {
        // Spec 7.3.2: the provider's own error, as it is (status, body, Retry-After).
        sendProviderError(res, result);
        closing = { kind: 'release', reason: 'provider_error' };
        return;
      }
      const answer = parseProviderJson(result.body);
      const { body: clientBody, usage } =
        providerFormat === format ? passThroughResponse(format, answer, identity) : translateFromProvider(answer, providerFormat, format, identity);
      const received = settlementUsage(model, usage ? usageRecord(usage) : undefined, inputTokens, answer);
      if (controller.signal.aborted && controller.signal.reason === KEY_REVOKED) {
        // Revoked after the whole answer arrived: the client does not get it, but the provider's work is paid.
        closing = { kind: 'cut_off', usage: received };
        throw new GatewayError('key_revoked');
      }
      res.status(200).json(clientBody);
      closing = { kind: 'settle', usage: received };
      return;
    }

    startEventStream(res, {});
    const stream = createClientStream(providerFormat, format, { ...identity, includeUsage: request.streamUsage });
    const received: SseEvent[] = [];
    let revoked = false;
    try {
      for await (const event of result.events) {
        received.push(event);
        writeEvents(res, stream.push(event));
      }
      writeEvents(res, stream.end());
    } catch (error) {
      revoked = controller.signal.reason === KEY_REVOKED;
      if (revoked) writeEvents(res, stream.fail(errorFromGatewayError(new GatewayError('key_revoked'))));
      else if (!(error instanceof ProviderStreamError)) throw error;
      else if (!controller.signal.aborted) writeEvents(res, stream.end()); // a broken provider stream ends with the format's error event
    }
    res.end();
    const usage = streamSettlementUsage(stream, inputTokens, providerFormat, received);
    const streamUsage = model.category === 'image' ? { ...usage, images: countImages(received) } : usage;
    closing = revoked ? { kind: 'cut_off', usage: streamUsage } : { kind: 'settle', usage: streamUsage };
  } catch (error) {
    if (controller.signal.aborted && controller.signal.reason === KEY_REVOKED) {
      if (closing.kind !== 'cut_off') closing = { kind: 'cut_off', usage: createUsage() };
      throw new GatewayError('key_revoked');
    }
    if (controller.signal.aborted) closing = { kind: 'release', reason: 'cancelled' };
    throw error;
  } finally {
    res.off('close', onClose);
    untrack();
    await closeReservation(deps.accounts, model, reservation, closing, deps.logger);
    const used = closing.kind === 'release' ? 0 : (closing.usage.inputTokens ?? 0) + (closing.usage.outputTokens ?? 0);
    deps.rateLimiter.settle(reservation.owner.keyId, reservation.reservationId, used).catch(() => {});
  }
}

function checkCategory(format: FormatName, model: CatalogModel): void {
  // Spec 7.2: an image model is allowed on chat completions (image generation through `modalities`).
  if (model.category === 'text' || (format === 'chat' && model.category === 'image')) return;
  throw new GatewayError('model_category_mismatch', `${model.id} is ${model.category === 'image' ? 'an image' : `a ${model.category}`} model; /v1/${format === 'chat' ? 'chat/completions' : format} serves text models`, {
    param: 'model',
  });
}

function imageReserve(model: CatalogModel): bigint {
  return new CostAccumulator().addPerItem(1, model.pricing.perImage ?? 0n).total();
}

function settlementUsage(model: CatalogModel, reported: ReturnType<typeof usageRecord> | undefined, inputTokens: number, answer: JsonObject) {
  const usage = reported ?? countedResponseUsage(inputTokens, answer);
  return model.category === 'image' ? { ...usage, images: countImages(answer) } : usage;
}

/** Images of an image model's chat answer (`choices[].message.images`, or `delta.images` in a stream). */
function countImages(answer: JsonObject | readonly SseEvent[]): number {
  const text = Array.isArray(answer) ? answer.map((event) => event.data).join('\n') : JSON.stringify(answer);
  return Math.max(1, text.match(/"image_url"\s*:/g)?.length ?? 0);
}

function translateFromProvider(answer: JsonObject, from: FormatName, to: FormatName, identity: { requestId: string; model: string; created: number }) {
  const { body, response } = translateResponse(answer, from, to, identity);
  return { body, usage: response.usage };
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

function sendProviderError(res: Response, result: ProviderBodyResponse): void {
  res.status(result.status);
  res.setHeader('Content-Type', result.headers.contentType ?? 'application/json');
  if (result.headers.retryAfter) res.setHeader('Retry-After', result.headers.retryAfter);
  res.end(result.body);
}
