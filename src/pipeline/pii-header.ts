import type { IncomingHttpHeaders } from 'node:http';
import type { OrganizationState } from '../access/organization-decider.js';
import { GatewayError } from '../errors/gateway-error.js';

/**
 * `X-PII-Masking` (spec 4.1, 5.6): `on|true|1` asks for masking, `off|false|0` declines it, anything else
 * is `400 invalid_pii_masking_header`; `on` needs the organization's option (`403 pii_masking_not_enabled`);
 * without the header the organization's setting applies. The masking itself is the mask step's
 * (src/pipeline/steps/mask-step.ts), once the body is read.
 */
export type PiiMasking = 'applied' | 'off';

export function piiMaskingFor(headers: IncomingHttpHeaders, organization: OrganizationState): PiiMasking {
  const requested = maskingRequested(headers) ?? organization.piiMasking;
  if (!requested) return 'off';
  if (!organization.piiMasking) throw new GatewayError('pii_masking_not_enabled');
  return 'applied';
}

/** Endpoints with nothing to mask (embeddings, images, transcriptions): only an explicit `on` is refused. */
export function refuseMaskingRequest(headers: IncomingHttpHeaders): void {
  if (maskingRequested(headers) === true) {
    throw new GatewayError('pii_masking_unsupported_endpoint', 'PII masking is available on the text endpoints only; send X-PII-Masking: off or no header');
  }
}

/** The header's answer: true, false, or undefined when it is absent. */
export function maskingRequested(headers: IncomingHttpHeaders): boolean | undefined {
  const header = headers['x-pii-masking'];
  const value = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase();
  if (value === undefined || value === '') return undefined;
  if (value === 'on' || value === 'true' || value === '1') return true;
  if (value === 'off' || value === 'false' || value === '0') return false;
  throw new GatewayError('invalid_pii_masking_header', `X-PII-Masking must be one of on, off, true, false, 1, 0 (got ${JSON.stringify(value)})`);
}
