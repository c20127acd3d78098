import type { ModelCategory } from '../billing/categories.js';
import type { Usage } from '../billing/usage.js';
import type { CatalogModel } from '../catalog/catalog.js';
import type { ErrorStyle } from '../errors/render-error.js';
import type { JsonObject } from '../formats/json-value.js';
import type { SseEvent } from '../formats/sse-event.js';
import type { AppliedPrice } from '../prices/applied-price.js';
import type { ProviderClient, ProviderEventStream, ProviderResponse } from '../providers/provider-client.js';
import type { MultipartUpload } from './multipart/multipart-upload.js';

/**
 * How a request body is read, and what the endpoint then gets: a parsed JSON object, a multipart form
 * whose file the pipeline has spooled to disk (and removes when the request ends), or a `form`: either of
 * the two as the client's Content-Type says, a multipart one without any file read (the field names of the
 * files it carried are listed, for the endpoint to refuse them by name).
 */
export interface RequestBodies {
  json: JsonObject;
  multipart: MultipartUpload;
  form: { readonly kind: 'json'; readonly json: JsonObject } | { readonly kind: 'multipart'; readonly upload: MultipartUpload };
}
export type BodyKind = keyof RequestBodies;

/**
 * What an endpoint is, declared once: its routes, which models it serves, how its body is read and
 * parsed, how much it reserves, how it calls the provider and answers. The request pipeline
 * (`src/pipeline/run-endpoint.ts`) runs every declaration through the same steps, so authentication,
 * limits, the reserve and the settlement exist once, whatever the endpoint. Most endpoints settle when the
 * provider's answer is in; a video job hands its reservation to the job that settles it later.
 */
export type EndpointSpec<Request extends EndpointRequest = EndpointRequest, Kind extends BodyKind = 'json'> =
  | AnsweringEndpointSpec<Request, Kind>
  | HandingOffEndpointSpec<Request, Kind>;

interface EndpointSpecBase<Request extends EndpointRequest, Kind extends BodyKind> {
  /** A short name for logs (`chat`, `messages`, …). */
  readonly name: string;
  readonly routes: readonly string[];
  /** The error body of every answer on these routes, chosen before the body is read (spec 2.3). */
  readonly errorStyle: ErrorStyle;
  readonly bodyKind: Kind;
  /** Largest body accepted, in bytes (spec 8). */
  readonly bodyLimit: number;
  /** Spec 7.2: the model categories this endpoint serves; any other is `400 model_category_mismatch`. */
  readonly categories: readonly ModelCategory[];
  /**
   * PII masking (spec 4.3 rule 6): `text` endpoints honour `X-PII-Masking` and the organization's setting,
   * and say what was done in the answer's `X-PII-Masking`; on `unsupported` ones an explicit `on` is
   * `400 pii_masking_unsupported_endpoint` (nothing there could be masked), `off` or none is fine.
   */
  readonly piiMasking: 'text' | 'unsupported';
  /** The body as read → the typed request; throws `GatewayError` (400s) for a bad one. */
  parse(body: RequestBodies[Kind]): Request;
  /**
   * The usage of the largest answer the request allows, and the tokens counted against the key's per-minute
   * limit. Asynchronous where the estimate reads the upload (a transcription's audio header).
   */
  estimate(request: Request, model: CatalogModel, body: RequestBodies[Kind]): ReserveEstimate | Promise<ReserveEstimate>;
  /** Appended to a 402's message (a smaller output cap lowers the reserve); none where the spec fixes the text. */
  readonly capHint?: string;
  /** Refuses what the resolved model cannot do (`400`; a video duration or size outside its lists), before anything is reserved. */
  fitModel?(request: Request, model: CatalogModel): void;
  /**
   * How a cost cap (`X-Max-Cost-USD`, the key's `max_cost_per_request_usd`) makes this endpoint's answer
   * smaller: the request with at most `outputTokens` of output per answer, the body as it then goes to the
   * provider, and the worst case that allows (the pipeline prices it and searches the largest that fits).
   * Absent where an answer cannot be made smaller without giving less than was asked (images, seconds of
   * video, a transcript): a request over the cap is refused there.
   */
  lowerCap?(asked: CapLowering<Request, Kind>, outputTokens: number): CapLowering<Request, Kind>;
}

/** A request as a cost cap lowers it: parsed, as it goes to the provider, and its worst case. */
export interface CapLowering<Request extends EndpointRequest, Kind extends BodyKind> {
  readonly request: Request;
  readonly body: RequestBodies[Kind];
  readonly model: CatalogModel;
  readonly estimate: ReserveEstimate;
}

/** An endpoint settled from the provider's answer, when it is in: text, embeddings, images, transcriptions. */
export interface AnsweringEndpointSpec<Request extends EndpointRequest = EndpointRequest, Kind extends BodyKind = 'json'> extends EndpointSpecBase<Request, Kind> {
  readonly settles: 'at_answer';
  /** Sends the request to the model's provider. */
  call(exchange: Exchange<Request, Kind>): Promise<ProviderResponse>;
  /** A 2xx JSON answer → the client's answer (JSON, or text for a format such as SRT) and the usage to settle. */
  answer(exchange: Exchange<Request, Kind>, providerBody: JsonObject): EndpointAnswer;
  /** A 2xx event stream → the client's stream; returns what was used, also when the stream broke off. */
  stream?(exchange: Exchange<Request, Kind>, events: ProviderEventStream, reply: StreamReply): Promise<Usage>;
}

/**
 * An endpoint whose request only starts the work (a video job): it answers at once, and its open
 * reservation is settled or released later by the job (src/videos). The request's id is the job's.
 */
export interface HandingOffEndpointSpec<Request extends EndpointRequest = EndpointRequest, Kind extends BodyKind = 'json'> extends EndpointSpecBase<Request, Kind> {
  readonly settles: 'by_job';
  /** A fresh id for the request, the job and its reservation (`video_…`), instead of a `gen-…` one. */
  newRequestId(): string;
  /** How long the reservation may stay open before the sweeper expires it: the job's whole life. */
  readonly reservationLifetimeMs: number;
  /** Starts the job with the open reservation; returns the answer (the job's record). */
  handOff(exchange: Exchange<Request, Kind>): Promise<JsonObject>;
}

export interface EndpointRequest {
  /** The model as the client named it (`<provider>/<model>`). */
  readonly model: string;
}

/**
 * What a request can use at most, said before it runs. The endpoint gives the usage of the largest answer
 * the request allows, every multiplier counted (`n` choices, images, inputs, the audio's duration); the
 * pipeline prices it with the one function that prices a settlement (catalog/pricing.ts), so a reserve and
 * a charge can never follow different rules.
 */
export interface ReserveEstimate {
  /** The largest usage: its `inputTokens` is also what is charged for the input when the provider reports none. */
  readonly worstCase: Usage;
  /** Counted against the key's tokens per minute when the request is admitted. */
  readonly rateLimitTokens: number;
  /**
   * The service tier the provider will be asked for (chat's and responses' `service_tier`, when it reaches
   * the provider): the request is priced at that tier's rates. Absent: the standard rates.
   */
  readonly serviceTier?: string;
}

/** One request from the reserve on: what the endpoint's call and answer see. */
export interface Exchange<Request, Kind extends BodyKind = 'json'> {
  readonly request: Request;
  readonly body: RequestBodies[Kind];
  readonly model: CatalogModel;
  readonly estimate: ReserveEstimate;
  /** The price version (and tier) the request was reserved at: a job started by it is billed at the same. */
  readonly price: Pick<AppliedPrice, 'version' | 'serviceTier'>;
  /** The gateway request id (`gen-…`; a video job's `video_…`), also the reservation id. */
  readonly requestId: string;
  /** Whose request it is. */
  readonly caller: { readonly orgId: string; readonly keyId: string };
  /** Unix seconds, from the pipeline's clock. */
  readonly created: number;
  /** A request header as the client sent it (first value), for the few that are forwarded. */
  header(name: string): string | undefined;
  /** Aborted when the client goes away or the key is revoked; `reason` says which. */
  readonly signal: AbortSignal;
  readonly providers: ProviderClient;
  /** Whether the key was revoked while the request ran (the answer must then end with `key_revoked`). */
  revoked(): boolean;
}

export type EndpointAnswer = JsonAnswer | TextAnswer;

export interface JsonAnswer {
  readonly body: JsonObject;
  readonly usage: Usage;
}

/** A 200 answer that is not JSON (a transcription as plain text, SRT or WebVTT). */
export interface TextAnswer {
  readonly text: string;
  /** With its charset, e.g. `text/vtt; charset=utf-8`. */
  readonly contentType: string;
  readonly usage: Usage;
}

/** Where a streaming endpoint writes its events (the pipeline owns the HTTP response). */
export interface StreamReply {
  /** Sends the status line and SSE headers. */
  start(): void;
  /** False when the client is not keeping up: wait for `drain()` before reading more from the provider. */
  write(events: readonly SseEvent[]): boolean;
  /** Resolves when the client has taken what was written (or is gone). */
  drain(): Promise<void>;
  end(): void;
}
