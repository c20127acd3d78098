import type { BodyKind, EndpointRequest } from '../../endpoints/endpoint-spec.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { keyAllowsModel } from '../authenticate.js';
import { candidateModels } from '../candidates.js';
import type { PipelineDependencies } from '../pipeline-dependencies.js';
import type { Parsed, Resolved } from '../request-stages.js';

/**
 * The catalog model the request names: `404 model_not_found`, `400 model_category_mismatch` when this
 * endpoint does not serve its category (spec 7.2), `403 model_not_allowed` when the key may not use it,
 * and the endpoint's own `400` for what the model cannot do (a video duration outside its list). Its
 * fallbacks (the request's own, else the catalog's) are the candidates tried after it, held to the same rules.
 */
export function resolveModelStep<Request extends EndpointRequest, Kind extends BodyKind>(
  deps: Pick<PipelineDependencies, 'catalog'>,
  stage: Parsed<Request, Kind>,
): Resolved<Request, Kind> {
  const { spec, request, caller } = stage;
  const model = deps.catalog.findModel(request.model);
  if (!model) throw new GatewayError('model_not_found', `model ${request.model} is not in the catalog`, { param: 'model' });
  if (!spec.categories.includes(model.category)) {
    const article = /^[aeiou]/.test(model.category) ? 'an' : 'a';
    throw new GatewayError('model_category_mismatch', `${model.id} is ${article} ${model.category} model; ${spec.routes[0]} serves ${spec.categories.join(' and ')} models`, {
      param: 'model',
    });
  }
  if (!keyAllowsModel(caller.key, model.id)) throw new GatewayError('model_not_allowed', `this API key may not use ${model.id}`);
  spec.fitModel?.(request, model);
  return { ...stage, model, candidates: candidateModels(deps.catalog, spec, caller, model, stage.requestedFallbacks) };
}
