import type { BodyKind, EndpointRequest } from '../../endpoints/endpoint-spec.js';
import { takeRequestFallbacks } from '../request-fallbacks.js';
import type { BodyRead, Parsed } from '../request-stages.js';

/**
 * The endpoint's parser: the body → its typed request, or a `400` naming the field at fault. The
 * gateway's own `fallbacks` field is taken out of the body first: the endpoint and the provider never see it.
 */
export function parseStep<Request extends EndpointRequest, Kind extends BodyKind>(stage: BodyRead<Request, Kind>): Parsed<Request, Kind> {
  const { body, fallbacks } = takeRequestFallbacks(stage.body);
  return { ...stage, body, request: stage.spec.parse(body), requestedFallbacks: fallbacks };
}
