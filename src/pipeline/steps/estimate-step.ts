import { withPiiMasking } from '../../billing/usage.js';
import { costOfUsage } from '../../catalog/pricing.js';
import type { BodyKind, EndpointRequest } from '../../endpoints/endpoint-spec.js';
import type { Estimated, Resolved } from '../request-stages.js';

/**
 * The reserve: the endpoint's worst case (the usage of the largest answer the request allows), priced by
 * the function that prices the settlement, so that a reserve and a charge follow the same rules. A masked
 * request's worst case includes its masking, so the reserve holds the masking fee too.
 */
export async function estimateStep<Request extends EndpointRequest, Kind extends BodyKind>(stage: Resolved<Request, Kind>): Promise<Estimated<Request, Kind>> {
  const { spec, request, model, body, masking } = stage;
  const endpointEstimate = await spec.estimate(request, model, body);
  const estimate = masking === 'applied' ? { ...endpointEstimate, worstCase: withPiiMasking(endpointEstimate.worstCase) } : endpointEstimate;
  return { ...stage, estimate, amount: costOfUsage(model.pricing, estimate.worstCase) };
}
