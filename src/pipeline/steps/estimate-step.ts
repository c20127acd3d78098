import { withPiiMasking } from '../../billing/usage.js';
import type { CatalogModel } from '../../catalog/catalog.js';
import type { BodyKind, EndpointRequest, ReserveEstimate } from '../../endpoints/endpoint-spec.js';
import { appliedPrice } from '../../prices/applied-price.js';
import { dearestWorstCase, priceCandidates } from '../candidates.js';
import type { PipelineDependencies } from '../pipeline-dependencies.js';
import type { Estimated, Resolved } from '../request-stages.js';

/**
 * The reserve: the endpoint's worst case (the usage of the largest answer the request allows, its tokens as
 * the dearest kind they could be reported as), priced by the function that prices the settlement, so that
 * a reserve and a charge follow the same rules, and at
 * the price in force now for the tier the provider is asked for (`400 unsupported_service_tier` for a
 * tier the price does not list). The settlement uses the same price, whatever changes meanwhile. A masked
 * request's worst case includes its masking, so the reserve holds the masking fee too.
 *
 * A request that may end on another deployment or a fallback model reserves the dearest of them: each
 * candidate's worst case priced at its own price (`worstCaseCharge` per candidate, the largest kept), so
 * whichever answers, its charge fits in the reserve.
 */
export async function estimateStep<Request extends EndpointRequest, Kind extends BodyKind>(
  deps: Pick<PipelineDependencies, 'prices' | 'clock'>,
  stage: Resolved<Request, Kind>,
): Promise<Estimated<Request, Kind>> {
  const { spec, request, model, body, masking } = stage;
  const estimateFor = async (candidate: CatalogModel): Promise<ReserveEstimate> => {
    const endpointEstimate = await spec.estimate(request, candidate, body);
    return masking === 'applied' ? { ...endpointEstimate, worstCase: withPiiMasking(endpointEstimate.worstCase) } : endpointEstimate;
  };
  const now = deps.clock.now();
  const estimates = [];
  for (const candidate of stage.candidates) estimates.push({ model: candidate, estimate: await estimateFor(candidate) });
  const estimate = estimates[0]!.estimate;
  const price = appliedPrice(deps.prices, model.id, estimate.serviceTier, now);
  const priced = priceCandidates(deps.prices, estimates, now);
  return { ...stage, estimate, price, priced, amount: dearestWorstCase(priced) };
}
