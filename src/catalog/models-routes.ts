import { Router } from 'express';
import type { CatalogStore } from './catalog-store.js';
import { renderModelList } from './model-list.js';

export function modelsRoutes(catalog: CatalogStore): Router {
  const router = Router();
  router.get('/v1/models', (_req, res) => {
    res.json(renderModelList(catalog.current.models.values()));
  });
  return router;
}
