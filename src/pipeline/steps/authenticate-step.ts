import type { BodyKind, EndpointRequest } from '../../endpoints/endpoint-spec.js';
import { authenticate } from '../authenticate.js';
import type { PipelineDependencies } from '../pipeline-dependencies.js';
import type { Authenticated, Received } from '../request-stages.js';

/** The key (spec 5): `401 invalid_api_key`, `403 account_blocked`, `400 invalid_space` before the body is read. */
export function authenticateStep<Request extends EndpointRequest, Kind extends BodyKind>(
  deps: Pick<PipelineDependencies, 'directory'>,
  stage: Received<Request, Kind>,
): Authenticated<Request, Kind> {
  return { ...stage, caller: authenticate(stage.connection.headers, deps.directory, stage.now) };
}
