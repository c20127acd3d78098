import type { BodyKind, EndpointRequest } from '../../endpoints/endpoint-spec.js';
import type { BodyRead, MaskingDecided } from '../request-stages.js';

/**
 * The body, read the way the endpoint declares within its limit: a JSON object (`400 invalid_json`,
 * `400 json_too_deep`, `413 request_too_large`), or a multipart form whose file is spooled to disk.
 * Read only once the key is known: an unauthenticated client cannot make the gateway read 32 MiB.
 */
export async function readBodyStep<Request extends EndpointRequest, Kind extends BodyKind>(stage: MaskingDecided<Request, Kind>): Promise<BodyRead<Request, Kind>> {
  const { spec, connection } = stage;
  return { ...stage, body: await connection.readBody(spec.bodyKind, spec.bodyLimit) };
}

/** Frees what the body held (the spooled upload) once the request has ended, whichever way. */
export function releaseBodyStep<Request extends EndpointRequest, Kind extends BodyKind>(stage: BodyRead<Request, Kind>): Promise<void> {
  return stage.connection.releaseBody(stage.spec.bodyKind, stage.body);
}
