import { Router } from 'express';
import type { DeploymentRecord, ListRecord } from '../admin-records.js';
import type { CatalogStore } from '../catalog/catalog-store.js';
import type { DeploymentHealth } from '../pipeline/deployment-health.js';

export interface DeploymentsRouteDependencies {
  readonly catalog: CatalogStore;
  /** Absent where no pipeline runs (the figures are then all zero). */
  readonly deploymentHealth?: DeploymentHealth;
}

/**
 * `GET /admin/v1/deployments`: every deployment of the catalog, in catalog order, with its attempts,
 * retries, fallbacks and cooldowns, and whether it cools down now; the console's deployment health. The
 * figures are the answering instance's (docs/operator-guide.md, "Deployments and fallbacks").
 */
export function deploymentsRoute(deps: DeploymentsRouteDependencies): Router {
  const router = Router();
  router.get('/admin/v1/deployments', (_req, res) => {
    const statuses = new Map((deps.deploymentHealth?.statuses() ?? []).map((status) => [status.deployment, status]));
    const data: DeploymentRecord[] = [...deps.catalog.current.models.values()].flatMap((model) =>
      model.deployments.map((deployment) => {
        const status = statuses.get(deployment.id);
        return {
          id: deployment.id,
          model: model.id,
          provider: deployment.provider.name,
          upstream: deployment.upstream,
          weight: deployment.weight,
          priced_as: deployment.priceKey,
          answered: status?.answered ?? 0,
          failed: status?.failed ?? 0,
          retries: status?.retries ?? 0,
          fallbacks: status?.fallbacks ?? 0,
          cooldowns: status?.cooldowns ?? 0,
          cooling_down: status?.coolingDown ?? false,
          cooling_until: status?.coolingUntil === undefined ? null : new Date(status.coolingUntil).toISOString(),
        };
      }),
    );
    const list: ListRecord<DeploymentRecord> = { object: 'list', data };
    res.json(list);
  });
  return router;
}
