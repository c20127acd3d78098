import type { CatalogModel } from '../../catalog/catalog.js';
import { estimateInputTokens, outputCap } from '../../catalog/reserve-estimate.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { errorFromGatewayError } from '../../formats/canonical/canonical-error.js';
import type { CanonicalRequest } from '../../formats/canonical/canonical-request.js';
import type { ClientIdentity } from '../../formats/canonical/stream-codec.js';
import type { FormatName } from '../../formats/canonical/format-name.js';
import { formatCodecs } from '../../formats/format-codecs.js';
import { isJsonObject, type JsonObject } from '../../formats/json-value.js';
import { passThroughRequest, passThroughResponse } from '../../formats/pass-through.js';
import { createClientStream, translateRequest, translateResponse } from '../../formats/translate.js';
import { createUsage, rateLimitedTokens, type Usage } from '../../billing/usage.js';
import { ProviderStreamError } from '../../providers/provider-stream-error.js';
import type { ProviderEventStream } from '../../providers/provider-client.js';
import { providerAdapter } from '../../providers/provider-registry.js';
import { DEFAULT_BODY_LIMIT } from '../body-limits.js';
import type { EndpointSpec, Exchange, JsonAnswer, StreamReply } from '../endpoint-spec.js';
import { withOutputCap } from './output-cap.js';
import { StreamUsageMeter } from './stream-usage-meter.js';
import { countedResponseUsage } from './text-usage.js';

/**
 * The three text formats (spec 4.1–4.3): any text model answers any of them. The body goes to the
 * provider as sent when it speaks the client's format (only the model replaced), else it is translated
 * through the canonical model, and so are the answer and the stream (DESIGN 7).
 */
export const chatEndpoint = textEndpoint('chat', ['/v1/chat/completions'], 'a smaller max_tokens or max_completion_tokens lowers the reserve');
/** `/messages` too: clients whose base URL is the gateway root append the path themselves (spec 9.1). */
export const messagesEndpoint = textEndpoint('messages', ['/v1/messages', '/messages'], undefined); // spec 7.3.1: the 402 text is exact
export const responsesEndpoint = textEndpoint('responses', ['/v1/responses'], 'a smaller max_output_tokens lowers the reserve');

type TextExchange = Exchange<CanonicalRequest>;

function textEndpoint(format: FormatName, routes: readonly string[], capHint: string | undefined): EndpointSpec<CanonicalRequest> {
  return {
    name: format,
    routes,
    errorStyle: format === 'messages' ? 'messages' : 'openai',
    bodyKind: 'json',
    bodyLimit: DEFAULT_BODY_LIMIT,
    // Spec 7.2: image models answer chat completions too (image generation through `modalities`).
    categories: format === 'chat' ? ['text', 'image'] : ['text'],
    piiMasking: 'text',
    settles: 'at_answer',
    ...(capHint === undefined ? {} : { capHint }),
    parse: (body) => formatCodecs[format].parseRequest(body),
    estimate: (request, model, body) => {
      const answers = answersAsked(format, model, body);
      // Every answer may reach the cap (a client's 128,000 on a 16,384-token model counts 16,384); the input
      // is billed once. An image model's answer is reserved one image each (spec 2.1: `message.images`).
      const worstCase = createUsage({
        inputTokens: estimateInputTokens(body),
        outputTokens: outputCap(model, request.maxOutputTokens) * answers,
        ...(model.category === 'image' ? { images: answers } : {}),
      });
      // the key's tokens per minute count the same worst case, cap included when the client set none
      const serviceTier = serviceTierSent(format, model, body);
      return { worstCase, rateLimitTokens: rateLimitedTokens(worstCase), ...(serviceTier === undefined ? {} : { serviceTier }) };
    },
    // A cost cap lowers the output cap of each answer; the input and the images of an image model stay.
    // The lowered cap reaches the provider in the client's body (pass-through) and in the canonical
    // request (translated), whichever `call` sends.
    lowerCap: ({ request, body, model, estimate }, outputTokens) => {
      const worstCase = createUsage({ ...estimate.worstCase, outputTokens: outputTokens * answersAsked(format, model, body) });
      return {
        request: { ...request, maxOutputTokens: outputTokens },
        body: withOutputCap(format, body, outputTokens, model.dropParams),
        model,
        estimate: { worstCase, rateLimitTokens: rateLimitedTokens(worstCase) },
      };
    },
    call: (exchange) => {
      const { model, request, body } = exchange;
      const upstreamFormat = providerFormat(format, model);
      const upstream =
        upstreamFormat === format
          ? passThroughRequest(format, body, { model: model.upstream, dropParams: model.dropParams }).body
          : translateRequest(request, upstreamFormat, { model: model.upstream, maxOutputTokensFallback: model.maxOutputTokens, dropParams: model.dropParams }).body;
      const path = providerAdapter(model.provider.kind).path(upstreamFormat);
      if (!path) throw new GatewayError('provider_error', `provider ${model.provider.name} does not speak ${upstreamFormat}`);
      const beta = exchange.header('anthropic-beta');
      return exchange.providers.call({
        provider: model.provider,
        path,
        body: JSON.stringify(upstream),
        ...(beta && model.provider.kind === 'anthropic' ? { headers: { 'anthropic-beta': beta } } : {}),
        signal: exchange.signal,
        stream: request.stream,
      });
    },
    answer: (exchange, providerBody) => jsonAnswer(format, exchange, providerBody),
    stream: (exchange, events, reply) => streamAnswer(format, exchange, events, reply),
  };
}

/**
 * How many answers the provider may give: chat's `n` (1–128, checked by the chat schema), when the body
 * reaches the provider as sent. A translated request carries no `n` (no other format has it, so the
 * provider answers once), and a model whose catalog entry drops `n` answers once too.
 */
function answersAsked(format: FormatName, model: CatalogModel, body: JsonObject): number {
  if (format !== 'chat' || providerFormat(format, model) !== 'chat' || model.dropParams.includes('n')) return 1;
  return typeof body.n === 'number' ? body.n : 1;
}

/**
 * The `service_tier` the provider is sent, which it prices at that tier's rates: chat's and responses', as
 * sent or translated between the two (the OpenAI formats share it). A translation to messages carries none
 * (Anthropic's `service_tier` says only whether priority capacity may be used, at the same price), and a
 * model whose catalog entry drops `service_tier` gets none: the standard rates apply to both.
 */
function serviceTierSent(format: FormatName, model: CatalogModel, body: JsonObject): string | undefined {
  const tier = body.service_tier;
  if (typeof tier !== 'string' || format === 'messages' || model.dropParams.includes('service_tier')) return undefined;
  return providerFormat(format, model) === 'messages' ? undefined : tier;
}

/** The client's format when the provider speaks it (pass-through), else the provider's first. */
function providerFormat(format: FormatName, model: CatalogModel): FormatName {
  return model.provider.formats.includes(format) ? format : model.provider.formats[0]!;
}

/** What the client's answer shows in place of the provider's: ids, model, time, and the echoed `text`. */
function clientIdentity(format: FormatName, exchange: TextExchange): ClientIdentity {
  const identity = { requestId: exchange.requestId, model: exchange.model.id, created: exchange.created };
  const text = format === 'responses' ? exchange.body.text : undefined;
  return isJsonObject(text) ? { ...identity, responsesText: text } : identity;
}

function jsonAnswer(format: FormatName, exchange: TextExchange, answer: JsonObject): JsonAnswer {
  const { model } = exchange;
  const identity = clientIdentity(format, exchange);
  const upstreamFormat = providerFormat(format, model);
  let body: JsonObject;
  let reported;
  if (upstreamFormat === format) ({ body, usage: reported } = passThroughResponse(format, answer, identity));
  else ({ body, response: { usage: reported } } = translateResponse(answer, upstreamFormat, format, identity));
  const usage: Usage = reported ?? countedResponseUsage(inputTokensOf(exchange), answer);
  return { body, usage: model.category === 'image' ? { ...usage, images: imagesIn(answer) } : usage };
}

async function streamAnswer(format: FormatName, exchange: TextExchange, events: ProviderEventStream, reply: StreamReply): Promise<Usage> {
  const { model, request } = exchange;
  const upstreamFormat = providerFormat(format, model);
  const identity = clientIdentity(format, exchange);
  const inputTokens = inputTokensOf(exchange);
  const stream = createClientStream(upstreamFormat, format, { ...identity, includeUsage: request.streamUsage, inputTokens });
  const meter = new StreamUsageMeter(upstreamFormat, inputTokens, {
    countImages: model.category === 'image',
    answers: answersAsked(format, model, exchange.body),
  });
  reply.start();
  try {
    for await (const event of events) {
      meter.observe(event);
      // a slow client slows the provider (its stream pauses) instead of filling the gateway's memory
      if (!reply.write(stream.push(event))) await reply.drain();
    }
    reply.write(stream.end());
  } catch (error) {
    if (exchange.revoked()) reply.write(stream.fail(errorFromGatewayError(new GatewayError('key_revoked'))));
    else if (!(error instanceof ProviderStreamError)) throw error;
    else if (!exchange.signal.aborted) reply.write(stream.end()); // a broken provider stream ends with the format's error event
  }
  reply.end();
  return meter.settlement(stream);
}

/** The reserve's upper bound of the input: what the input is charged when the provider reports none. */
function inputTokensOf(exchange: TextExchange): number {
  return exchange.estimate.worstCase.inputTokens ?? 0;
}

/** Images of an image model's chat answer (`choices[].message.images`). */
function imagesIn(answer: JsonObject): number {
  return Math.max(1, JSON.stringify(answer).match(/"image_url"\s*:/g)?.length ?? 0);
}
