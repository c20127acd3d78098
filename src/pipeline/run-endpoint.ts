import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CatalogModel } from '../catalog/catalog.js';
import { costOfUsage } from '../catalog/pricing.js';
import type { BodyKind, EndpointRequest, EndpointSpec, RequestBodies } from '../endpoints/endpoint-spec.js';
import { GatewayError } from '../errors/gateway-error.js';
import { authenticate, keyAllowsModel, type Caller } from './authenticate.js';
import type { PipelineDependencies } from './pipeline-dependencies.js';
import { piiMaskingFor, refuseMaskingRequest } from './pii-header.js';
import type { RequestContext, RequestRecord } from './request-context.js';
import { discardUpload, readMultipart } from './multipart-body.js';
import { parseJsonObject, readBody, refuseDeclaredOversize } from './request-body.js';
import { correctRateLimit } from './rate-limit-correction.js';
import { reserveFunds } from './reserve-step.js';
import { runExchange } from './run-exchange.js';

/**
 * One endpoint's handler: runs the request to its end and rejects with the error the client is to get
 * (the caller renders it in `context.errorStyle`). The request id is already in `context` and on `res`.
 */
export type EndpointHandler = (req: IncomingMessage, res: ServerResponse, context: RequestContext) => Promise<void>;

/**
 * The request pipeline (DESIGN 5), the same for every endpoint declaration:
 * error style → declared size → authenticate → PII header → body → parse → model and category →
 * permissions → rate limit → reserve → call → answer → settle / release / cut off.
 * Everything before the reserve costs nothing; from the reserve on, `runExchange` closes the reservation
 * exactly once.
 */
export function runEndpoint<Parsed extends EndpointRequest, Kind extends BodyKind>(spec: EndpointSpec<Parsed, Kind>, deps: PipelineDependencies): EndpointHandler {
  return async (req, res, context) => {
    let handled!: () => void;
    context.handled = new Promise<void>((resolve) => (handled = resolve));
    try {
      await runSteps(spec, deps, req, res, context);
    } finally {
      handled();
    }
  };
}

async function runSteps<Parsed extends EndpointRequest, Kind extends BodyKind>(
  spec: EndpointSpec<Parsed, Kind>,
  deps: PipelineDependencies,
  req: IncomingMessage,
  res: ServerResponse,
  context: RequestContext,
): Promise<void> {
  context.errorStyle = spec.errorStyle;
  // first, so that every refusal of this endpoint (a 413 too) is logged and counted under its name
  const record: RequestRecord = (context.record = { endpoint: spec.name });
  if (spec.piiMasking === 'text') res.setHeader('X-PII-Masking', 'off');
  refuseDeclaredOversize(req, spec.bodyLimit);
  const now = deps.clock.now();

  const caller = authenticate(req.headers, deps.directory, now);
  Object.assign(record, { keyId: caller.key.keyId, orgId: caller.organization.orgId, spaceId: caller.spaceId });
  if (spec.piiMasking === 'text') res.setHeader('X-PII-Masking', piiMaskingFor(req.headers, caller.organization));
  else refuseMaskingRequest(req.headers);
  const body = await readRequestBody(spec.bodyKind, req, spec.bodyLimit);
  try {
    await runWithBody(spec, deps, { req, res, context, record, caller, now }, body);
  } finally {
    await releaseRequestBody(spec.bodyKind, body);
  }
}

/** What the steps before the body established. */
interface Authenticated {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly context: RequestContext;
  readonly record: RequestRecord;
  readonly caller: Caller;
  readonly now: Date;
}

/** parse → model and category → permissions → rate limit → reserve → the exchange. */
async function runWithBody<Parsed extends EndpointRequest, Kind extends BodyKind>(
  spec: EndpointSpec<Parsed, Kind>,
  deps: PipelineDependencies,
  { req, res, context, record, caller, now }: Authenticated,
  body: RequestBodies[Kind],
): Promise<void> {
  const request = spec.parse(body);
  const model = resolveModel(spec, request, caller, deps);
  record.model = model.id;
  record.provider = model.provider.name;
  const estimate = await spec.estimate(request, model, body);

  const admission = await deps.rateLimiter.admit(caller.key.keyId, context.requestId, estimate.rateLimitTokens, {
    requestsPerMinute: caller.key.rpm,
    tokensPerMinute: caller.key.tpm,
  });
  if (!admission.allowed) {
    record.rateLimited = admission.reason;
    const limit = admission.reason === 'requests' ? `${caller.key.rpm} requests` : `${caller.key.tpm} tokens`;
    throw new GatewayError('rate_limit_exceeded', `more than ${limit} per minute for this key`, { retryAfterSeconds: Math.ceil(admission.retryAfterMs / 1000) });
  }
  const reservation = await reserveFunds(deps.accounts, deps.directory, deps.clock, {
    requestId: context.requestId,
    caller,
    model,
    amount: costOfUsage(model, estimate.worstCase),
    capHint: spec.capHint,
  }).catch((error: unknown) => {
    // Refused before the provider was called: nothing was used, so the admission is given back (a 402
    // must not turn the next request into a 429).
    correctRateLimit(deps, caller.key.keyId, context.requestId, 0);
    throw error;
  });
  await runExchange(spec, deps, { req, res, record, request, body, model, estimate, reservation, created: Math.floor(now.getTime() / 1000) });
}

/** Reads the body the way the endpoint declares: a JSON object, or a multipart form with its file spooled to disk. */
async function readRequestBody<Kind extends BodyKind>(kind: Kind, req: IncomingMessage, limit: number): Promise<RequestBodies[Kind]> {
  const body = kind === 'multipart' ? await readMultipart(req, limit) : parseJsonObject(await readBody(req, limit));
  return body as RequestBodies[Kind]; // the branch taken is the one `kind` names
}

/** Frees what the body held once the request has ended, whichever way (the spooled upload). */
async function releaseRequestBody<Kind extends BodyKind>(kind: Kind, body: RequestBodies[Kind]): Promise<void> {
  if (kind === 'multipart') await discardUpload(body as RequestBodies['multipart']);
}

/** The catalog model the request names, if this endpoint serves its category (spec 7.2) and the key may use it. */
function resolveModel<Parsed extends EndpointRequest, Kind extends BodyKind>(spec: EndpointSpec<Parsed, Kind>, request: Parsed, caller: Caller, deps: PipelineDependencies): CatalogModel {
  const model = deps.catalog.findModel(request.model);
  if (!model) throw new GatewayError('model_not_found', `model ${request.model} is not in the catalog`, { param: 'model' });
  if (!spec.categories.includes(model.category)) {
    const article = /^[aeiou]/.test(model.category) ? 'an' : 'a';
    throw new GatewayError('model_category_mismatch', `${model.id} is ${article} ${model.category} model; ${spec.routes[0]} serves ${spec.categories.join(' and ')} models`, {
      param: 'model',
    });
  }
  if (!keyAllowsModel(caller.key, model.id)) throw new GatewayError('model_not_allowed', `this API key may not use ${model.id}`);
  return model;
}
