import type { BodyKind, EndpointRequest } from '../../endpoints/endpoint-spec.js';
import type { BodyRead, Parsed } from '../request-stages.js';

/** The endpoint's parser: the body → its typed request, or a `400` naming the field at fault. */
export function parseStep<Request extends EndpointRequest, Kind extends BodyKind>(stage: BodyRead<Request, Kind>): Parsed<Request, Kind> {
  return { ...stage, request: stage.spec.parse(stage.body) };
}
