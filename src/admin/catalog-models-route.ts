import { Router } from 'express';
import type { ListRecord, ModelRecord } from '../admin-records.js';
import type { CatalogStore } from '../catalog/catalog-store.js';
import { renderModelList } from '../catalog/model-list.js';

/**
 * `GET /admin/v1/models`: every model of the catalog, in the shape of `GET /v1/models` (which lists only the
 * calling key's). The console lists them on its models page and offers them when a key's allowed models
 * are chosen.
 */
export function catalogModelsRoute(deps: { readonly catalog: CatalogStore }): Router {
  const router = Router();
  router.get('/admin/v1/models', (_req, res) => {
    const list: ListRecord<ModelRecord> = renderModelList(deps.catalog.current.models.values());
    res.json(list);
  });
  return router;
}
