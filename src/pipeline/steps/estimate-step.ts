import { withPiiMasking } from '../../billing/usage.js';
import { worstCaseCharge } from '../../catalog/pricing.js';
import type { BodyKind, EndpointRequest } from '../../endpoints/endpoint-spec.js';
import { appliedPrice } from '../../prices/applied-price.js';
import type { PipelineDependencies } from '../pipeline-dependencies.js';
import type { Estimated, Resolved } from '../request-stages.js';

/**
 * The reserve: the endpoint's worst case (the usage of the largest answer the request allows, its tokens as
 * the dearest kind they could be reported as), priced by the function that prices the settlement, so that
 * a reserve and a charge follow the same rules, and at
 * the price in force now for the tier the provider is asked for (`400 unsupported_service_tier` for a
 * tier the price does not list). The settlement uses the same price, whatever changes meanwhile. A masked
 * request's worst case includes its masking, so the reserve holds the masking fee too.
 */
export async function estimateStep<Request extends EndpointRequest, Kind extends BodyKind>(
  deps: Pick<PipelineDependencies, 'prices' | 'clock'>,
  stage: Resolved<Request, Kind>,
): Promise<Estimated<Request, Kind>> {
  const { spec, request, model, body, masking } = stage;
  const endpointEstimate = await spec.estimate(request, model, body);
  const estimate = masking === 'applied' ? { ...endpointEstimate, worstCase: withPiiMasking(endpointEstimate.worstCase) } : endpointEstimate;
  const price = appliedPrice(deps.prices, model.id, estimate.serviceTier, deps.clock.now());
  return { ...stage, estimate, price, amount: worstCaseCharge(price.pricing, estimate.worstCase).cost };
}
