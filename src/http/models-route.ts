import { Router } from 'express';
import { renderModelList } from '../catalog/model-list.js';
import type { PipelineDependencies } from '../pipeline/pipeline-dependencies.js';
import { authenticate, keyAllowsModel } from '../pipeline/authenticate.js';

/** `GET /v1/models`: the models of the catalog that the calling key may use, each at its price in force. */
export function modelsRoute(deps: Pick<PipelineDependencies, 'catalog' | 'prices' | 'directory' | 'clock'>): Router {
  const router = Router();
  router.get('/v1/models', (req, res) => {
    const now = deps.clock.now();
    const { key } = authenticate(req.headers, deps.directory, now);
    const models = [...deps.catalog.current.models.values()].filter((model) => keyAllowsModel(key, model.id));
    res.json(renderModelList(models, (model) => deps.prices.inForce(model, now)));
  });
  return router;
}
