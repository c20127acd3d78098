import { costOfUsage } from '../../catalog/pricing.js';
import type { BodyKind, EndpointRequest } from '../../endpoints/endpoint-spec.js';
import type { Estimated, Resolved } from '../request-stages.js';

/**
 * The reserve: the endpoint's worst case (the usage of the largest answer the request allows), priced by
 * the function that prices the settlement, so that a reserve and a charge follow the same rules.
 */
export async function estimateStep<Request extends EndpointRequest, Kind extends BodyKind>(stage: Resolved<Request, Kind>): Promise<Estimated<Request, Kind>> {
  const { spec, request, model, body } = stage;
  const estimate = await spec.estimate(request, model, body);
  return { ...stage, estimate, amount: costOfUsage(model, estimate.worstCase) };
}
