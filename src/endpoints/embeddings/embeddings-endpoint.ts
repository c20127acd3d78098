import { z } from 'zod';
import { withTokenizerMargin } from '../../billing/reserve-margin.js';
import { countTokens } from '../../billing/o200k-token-counter.js';
import { createUsage, rateLimitedTokens } from '../../billing/usage.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { parseClientBody } from '../../formats/canonical/schema-validation.js';
import type { JsonObject } from '../../formats/json-value.js';
import { providerAdapter } from '../../providers/provider-registry.js';
import { DEFAULT_BODY_LIMIT } from '../body-limits.js';
import type { EndpointSpec } from '../endpoint-spec.js';
import { convertEmbeddings, type EmbeddingEncoding } from './embedding-encoding.js';

/**
 * `POST /v1/embeddings` (spec 1.3, wire-formats.md 4.1): embeddings models only. The body goes to the
 * provider as sent, with the model replaced; unknown fields (`dimensions`, `user`, …) pass through.
 */
const tokenArray = z.array(z.number().int().nonnegative());
const embeddingsRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string()), tokenArray, z.array(tokenArray)]),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().positive().optional(),
});

export interface EmbeddingsRequest {
  readonly model: string;
  /** Every input, as text or as tokens. */
  readonly inputs: ReadonlyArray<string | readonly number[]>;
  /** What the client asked for (the API's default is `float`). */
  readonly encoding: EmbeddingEncoding;
}

export const embeddingsEndpoint: EndpointSpec<EmbeddingsRequest> = {
  name: 'embeddings',
  routes: ['/v1/embeddings'],
  errorStyle: 'openai',
  bodyKind: 'json',
  bodyLimit: DEFAULT_BODY_LIMIT,
  categories: ['embeddings'],
  piiMasking: 'unsupported',
  settles: 'at_answer',
  parse: (body) => {
    const request = parseClientBody(embeddingsRequestSchema, body);
    const inputs = inputsOf(request.input);
    // An empty input would still be sent and billed upstream for nothing: refused here (docs/client-guide.md, embeddings).
    if (inputs.length === 0 || inputs.some((input) => input.length === 0)) {
      throw new GatewayError('invalid_request', 'input must not be empty: send a string, an array of strings, or token arrays', { param: 'input' });
    }
    return { model: request.model, inputs, encoding: request.encoding_format ?? 'float' };
  },
  estimate: (request) => {
    // Every input is embedded and billed: text counted with the tokenizer and its margin, token arrays exact.
    let text = 0;
    let tokens = 0;
    for (const input of request.inputs) {
      if (typeof input === 'string') text += countTokens(input);
      else tokens += input.length;
    }
    const worstCase = createUsage({ inputTokens: withTokenizerMargin(text) + tokens });
    return { worstCase, rateLimitTokens: rateLimitedTokens(worstCase) };
  },
  call: (exchange) => {
    const { model } = exchange;
    const path = providerAdapter(model.provider.kind).path('embeddings');
    if (!path) throw new GatewayError('provider_error', `provider ${model.provider.name} has no embeddings API`);
    return exchange.providers.call({ provider: model.provider, path, body: JSON.stringify({ ...exchange.body, model: model.upstream }), signal: exchange.signal });
  },
  answer: (exchange, answer) => {
    const reported = providerAdapter(exchange.model.provider.kind).sideUsage.embeddings(answer);
    const body: JsonObject = { ...answer, model: exchange.model.id, data: convertEmbeddings(answer.data, exchange.request.encoding) };
    return { body, usage: reported ?? createUsage({ inputTokens: exchange.estimate.worstCase.inputTokens, counted: true }) };
  },
};

function inputsOf(input: z.output<typeof embeddingsRequestSchema>['input']): ReadonlyArray<string | readonly number[]> {
  if (typeof input === 'string') return [input];
  if (input.length === 0) return [];
  // An array of numbers is one input of tokens; an array of strings or of token arrays is several inputs.
  if (typeof input[0] === 'number') return [input as number[]];
  return input as Array<string | number[]>;
}
