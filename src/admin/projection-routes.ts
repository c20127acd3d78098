import { Router } from 'express';
import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import type { EventStore } from '../eventstore/event-store.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { SignInThrottle } from '../http/sign-in-throttle.js';
import type { ProjectionRebuildRecord } from '../admin-records.js';
import { renderProjectionStatus } from '../../projections/projection-status-record.js';
import { projectionStatuses } from '../../projections/projection-status.js';
import { rebuildProjection } from '../../projections/rebuild-projection.js';
import { eventCatalogue, projections } from '../../projections/registry.js';
import { adminAccess } from './admin-access.js';
import { renderList } from './record-renderers.js';

/**
 * The read models through the admin API, for an operator who cannot open the database beside the gateway
 * (the embedded mode: `npm run projections -- status|rebuild` goes through these while the gateway runs):
 * - `GET /admin/v1/projections`: every generation, its checkpoint and its lag (as `projections -- status`);
 * - `POST /admin/v1/projections/{name}/rebuild`: a blue/green rebuild (projections/rebuild-projection.ts),
 *   answered when the new generation serves reads.
 */
export interface ProjectionRouteDependencies {
  readonly adminToken: string | undefined;
  readonly database: Database;
  readonly store: EventStore;
  /** The clock the console's sessions are checked against (the one that issued them). */
  readonly clock: Clock;
  readonly signIns?: SignInThrottle;
}

export function projectionRoutes(deps: ProjectionRouteDependencies): Router {
  const router = Router();
  router.use('/admin/v1/projections', adminAccess(deps.adminToken, deps.clock, deps.signIns));

  router.get('/admin/v1/projections', async (_req, res) => {
    const statuses = await projectionStatuses(deps.database, deps.store, projections);
    res.json(renderList(statuses.map(renderProjectionStatus)));
  });

  router.post('/admin/v1/projections/:name/rebuild', async (req, res) => {
    const projection = projections.find((candidate) => candidate.name === req.params.name);
    if (!projection) throw new GatewayError('resource_not_found', `no projection ${req.params.name}; known: ${projections.map((known) => known.name).join(', ')}`);
    const result = await rebuildProjection({ database: deps.database, store: deps.store, catalogue: eventCatalogue, projection });
    res.json({
      object: 'projection_rebuild',
      projection: projection.name,
      generation: result.generation,
      events_processed: Number(result.eventsProcessed),
      elapsed_ms: Math.round(result.elapsedMs),
      retired: result.retired,
    } satisfies ProjectionRebuildRecord);
  });

  return router;
}
