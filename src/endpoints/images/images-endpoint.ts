import { z } from 'zod';
import { createUsage, rateLimitedTokens } from '../../billing/usage.js';
import { promptTokensBound } from '../../catalog/reserve-estimate.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { parseClientBody } from '../../formats/canonical/schema-validation.js';
import { providerAdapter } from '../../providers/provider-registry.js';
import { DEFAULT_BODY_LIMIT } from '../body-limits.js';
import type { EndpointSpec } from '../endpoint-spec.js';

/**
 * `POST /v1/images/generations` (spec 1.7, 4.3; wire-formats.md 4.2): image models only, base64 answers
 * only, no streaming. The body goes to the provider as sent, with the model replaced (`size`, `quality`,
 * `background`, `output_format` and the rest pass through).
 */
const MAX_IMAGES = 10;

const imagesRequestSchema = z.looseObject({
  model: z.string().min(1),
  prompt: z.string().min(1),
});

export interface ImagesRequest {
  readonly model: string;
  readonly prompt: string;
  /** Images asked for (`n`, default 1). */
  readonly count: number;
}

export const imagesEndpoint: EndpointSpec<ImagesRequest> = {
  name: 'images',
  routes: ['/v1/images/generations'],
  errorStyle: 'openai',
  bodyKind: 'json',
  bodyLimit: DEFAULT_BODY_LIMIT,
  categories: ['image'],
  piiMasking: 'unsupported',
  settles: 'at_answer',
  parse: (body) => {
    // The refusals the spec names come before the generic field checks, so each gets its own code.
    if (body.prompt === undefined || body.prompt === null || body.prompt === '') throw new GatewayError('missing_prompt', undefined, { param: 'prompt' });
    if (body.response_format === 'url') {
      throw new GatewayError('unsupported_response_format', 'response_format url is not supported: images are answered as b64_json', { param: 'response_format' });
    }
    if (body.response_format !== undefined && body.response_format !== null && body.response_format !== 'b64_json') {
      throw new GatewayError('unsupported_response_format', `response_format must be b64_json (got ${JSON.stringify(body.response_format).slice(0, 40)})`, { param: 'response_format' });
    }
    if (body.stream === true) throw new GatewayError('image_streaming_unsupported', undefined, { param: 'stream' });
    // forwarded as it is otherwise: a provider that took `"stream": "yes"` for true would stream what the gateway reads as JSON
    if (body.stream !== undefined && body.stream !== null && body.stream !== false) throw new GatewayError('invalid_request', 'stream must be a boolean', { param: 'stream' });
    const count = body.n === undefined ? 1 : body.n;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_IMAGES) {
      throw new GatewayError('invalid_image_count', `n must be an integer from 1 to ${MAX_IMAGES} (got ${JSON.stringify(body.n)})`, { param: 'n' });
    }
    const request = parseClientBody(imagesRequestSchema, body);
    return { model: request.model, prompt: request.prompt, count };
  },
  estimate: (request) => {
    // all n images, and the prompt (priced where the model has an input price)
    const worstCase = createUsage({ images: request.count, inputTokens: promptTokensBound(request.prompt) });
    return { worstCase, rateLimitTokens: rateLimitedTokens(worstCase) };
  },
  call: (exchange) => {
    const { model } = exchange;
    const path = providerAdapter(model.provider.kind).path('images');
    if (!path) throw new GatewayError('provider_error', `provider ${model.provider.name} has no image generation API`);
    return exchange.providers.call({ provider: model.provider, path, body: JSON.stringify({ ...exchange.body, model: model.upstream }), signal: exchange.signal });
  },
  answer: (exchange, answer) => {
    // Charged for the images that came back: a provider that made fewer than n is charged for fewer.
    const reported = providerAdapter(exchange.model.provider.kind).sideUsage.images(answer);
    const images = Array.isArray(answer.data) ? answer.data.length : 0;
    return { body: answer, usage: reported ?? createUsage({ images, counted: true }) };
  },
};
