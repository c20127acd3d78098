import type { BodyKind, EndpointRequest } from '../../endpoints/endpoint-spec.js';
import { piiMaskingFor, refuseMaskingRequest } from '../pii-header.js';
import type { Authenticated, MaskingDecided } from '../request-stages.js';

/**
 * Whether the request is masked (spec 4.3 rule 6), from `X-PII-Masking` and the organization's setting:
 * a text endpoint says which in its answer's `X-PII-Masking`; an endpoint with nothing to mask refuses an
 * explicit `on` and is never masked.
 */
export function maskingStep<Request extends EndpointRequest, Kind extends BodyKind>(stage: Authenticated<Request, Kind>): MaskingDecided<Request, Kind> {
  const { spec, connection, caller } = stage;
  if (spec.piiMasking !== 'text') {
    refuseMaskingRequest(connection.headers);
    return { ...stage, masking: 'off' };
  }
  const masking = piiMaskingFor(connection.headers, caller.organization);
  connection.setHeader('X-PII-Masking', masking);
  return { ...stage, masking };
}
