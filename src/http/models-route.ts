import { Router } from 'express';
import { renderModelList } from '../catalog/model-list.js';
import type { PipelineDependencies } from '../pipeline/pipeline-dependencies.js';
import { authenticate, keyAllowsModel } from '../pipeline/authenticate.js';

/** `GET /v1/models`: the models of the catalog that the calling key may use. */
export function modelsRoute(deps: Pick<PipelineDependencies, 'catalog' | 'directory' | 'clock'>): Router {
  const router = Router();
  router.get('/v1/models', (req, res) => {
    const { key } = authenticate(req.headers, deps.directory, deps.clock.now());
    const models = [...deps.catalog.current.models.values()].filter((model) => keyAllowsModel(key, model.id));
    res.json(renderModelList(models));
  });
  return router;
}
