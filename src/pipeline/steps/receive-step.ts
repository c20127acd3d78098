import type { Clock } from '../../clock.js';
import type { BodyKind, EndpointRequest, EndpointSpec } from '../../endpoints/endpoint-spec.js';
import type { ClientConnection } from '../client-connection.js';
import type { Received } from '../request-stages.js';

/**
 * The request arrives: a text endpoint answers `X-PII-Masking: off` until masking is decided, so that
 * every answer carries the header, a 413 or a 401 too; a body declared larger than the endpoint's limit
 * is refused at once, before it is read or the key is looked at. Nothing here costs anything.
 */
export function receiveStep<Request extends EndpointRequest, Kind extends BodyKind>(
  spec: EndpointSpec<Request, Kind>,
  connection: ClientConnection,
  requestId: string,
  clock: Clock,
): Received<Request, Kind> {
  if (spec.piiMasking === 'text') connection.setHeader('X-PII-Masking', 'off');
  connection.refuseDeclaredOversize(spec.bodyLimit);
  return { spec, connection, requestId, now: clock.now() };
}
