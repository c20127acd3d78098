import type { BodyKind, EndpointRequest } from '../../endpoints/endpoint-spec.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { PipelineDependencies } from '../pipeline-dependencies.js';
import type { Admitted, Estimated } from '../request-stages.js';

/**
 * `429 rate_limit_exceeded`, saying which limit refused the request (the metrics count them apart): one of
 * the key's per-minute limits here, or a concurrency cap at the reserve.
 */
export class RateLimitRefusal extends GatewayError {
  constructor(
    readonly limit: 'requests' | 'tokens' | 'concurrency',
    message: string,
    retryAfterSeconds: number,
  ) {
    super('rate_limit_exceeded', message, { retryAfterSeconds });
  }
}

/**
 * The key's requests and tokens per minute (spec 8): the request is counted with the tokens of its worst
 * case, so a burst of concurrent requests cannot overshoot; the close step corrects the count to the
 * tokens really used.
 */
export async function admitStep<Request extends EndpointRequest, Kind extends BodyKind>(
  deps: Pick<PipelineDependencies, 'rateLimiter'>,
  stage: Estimated<Request, Kind>,
): Promise<Admitted<Request, Kind>> {
  const { caller, requestId, estimate } = stage;
  const { key } = caller;
  const admission = await deps.rateLimiter.admit(key.keyId, requestId, estimate.rateLimitTokens, { requestsPerMinute: key.rpm, tokensPerMinute: key.tpm });
  if (!admission.allowed) {
    const limit = admission.reason === 'requests' ? `${key.rpm} requests` : `${key.tpm} tokens`;
    throw new RateLimitRefusal(admission.reason, `more than ${limit} per minute for this key`, Math.ceil(admission.retryAfterMs / 1000));
  }
  return { ...stage, admittedTokens: estimate.rateLimitTokens };
}
