import type { BodyKind, EndpointRequest, RequestBodies } from '../../endpoints/endpoint-spec.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { maskRequest } from '../../pii/mask-request.js';
import { isMaskedFormat } from '../../pii/masked-format.js';
import { maskingRequested } from '../pii-header.js';
import type { PipelineDependencies } from '../pipeline-dependencies.js';
import type { BodyRead } from '../request-stages.js';
import { unmaskingConnection } from '../unmasking-connection.js';

/**
 * PII masking (spec 1.5, 4.3 rule 6), on a request whose masking the masking step decided: every text of
 * the body the provider would read is masked here, once, before it is parsed, so both ways a body goes on
 * (as it is, or translated from the parsed request) carry placeholders only. The steps after it get the
 * masked body and a connection that unmasks every answer on its way to the client. Nothing here costs
 * anything: it comes before the reserve. The placeholders live in this request's memory only.
 *
 * An image model on chat completions cannot be masked (its prompt becomes a picture): an explicit `on` is
 * `400 pii_masking_unsupported_endpoint`; the organization's setting alone leaves such a request unmasked,
 * as it does on the other endpoints with nothing to mask, and the answer says `X-PII-Masking: off`.
 */
export async function maskStep<Request extends EndpointRequest, Kind extends BodyKind>(
  deps: Pick<PipelineDependencies, 'catalog'>,
  stage: BodyRead<Request, Kind>,
): Promise<BodyRead<Request, Kind>> {
  const { spec, connection, body } = stage;
  if (stage.masking !== 'applied') return stage;
  if (spec.bodyKind !== 'json' || !isMaskedFormat(spec.name)) throw new GatewayError('internal_error', `endpoint ${spec.name} is declared maskable but has no text format`);
  const json = body as RequestBodies['json'];
  if (typeof json.model === 'string' && deps.catalog.findModel(json.model)?.category === 'image') {
    connection.setHeader('X-PII-Masking', 'off');
    if (maskingRequested(connection.headers) === true) {
      throw new GatewayError('pii_masking_unsupported_endpoint', 'PII masking does not cover image generation; send X-PII-Masking: off to generate images');
    }
    return { ...stage, masking: 'off' };
  }
  const masked = await maskRequest(spec.name, json);
  // nothing found: the answer cannot hold a placeholder of this request, and needs no unmasking
  const answering = masked.placeholders.size === 0 ? connection : unmaskingConnection(connection, spec.name, masked.placeholders);
  return { ...stage, body: masked.body as RequestBodies[Kind], connection: answering };
}
