import { Router } from 'express';
import type { AccessDirectory } from '../access/access-directory.js';
import type { Clock } from '../clock.js';
import { authenticate, keyAllowsModel } from '../pipeline/authenticate.js';
import type { CatalogStore } from './catalog-store.js';
import { renderModelList } from './model-list.js';

/** `GET /v1/models`: the models of the catalog that the calling key may use. */
export function modelsRoutes(catalog: CatalogStore, directory: AccessDirectory, clock: Clock): Router {
  const router = Router();
  router.get('/v1/models', (req, res) => {
    const { key } = authenticate(req.headers, directory, clock.now());
    const models = [...catalog.current.models.values()].filter((model) => keyAllowsModel(key, model.id));
    res.json(renderModelList(models));
  });
  return router;
}
