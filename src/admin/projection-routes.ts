import { Router } from 'express';
import type { Database } from '../db/database.js';
import type { EventStore } from '../eventstore/event-store.js';
import { GatewayError } from '../errors/gateway-error.js';
import { projectionStatuses, type ProjectionStatus } from '../../projections/projection-status.js';
import { rebuildProjection } from '../../projections/rebuild-projection.js';
import { eventCatalogue, projections } from '../../projections/registry.js';
import { requireAdminToken } from './admin-routes.js';

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
}

export function projectionRoutes(deps: ProjectionRouteDependencies): Router {
  const router = Router();
  router.use('/admin/v1/projections', requireAdminToken(deps.adminToken));

  router.get('/admin/v1/projections', async (_req, res) => {
    const statuses = await projectionStatuses(deps.database, deps.store, projections);
    res.json({ object: 'list', data: statuses.map(projectionStatusJson) });
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
    });
  });

  return router;
}

export function projectionStatusJson(status: ProjectionStatus) {
  return {
    projection: status.projection,
    generation: status.generation ?? null,
    status: status.status,
    built_by_version: status.builtByVersion ?? null,
    code_version: status.codeVersion ?? null,
    position: status.position,
    events_processed: Number(status.eventsProcessed),
    updated_at: status.updatedAt?.toISOString() ?? null,
    lag: status.lag ? { events_behind: status.lag.eventsBehind, events_behind_capped: status.lag.eventsBehindCapped, ms_behind: status.lag.msBehind } : null,
  };
}

/** The inverse of `projectionStatusJson`, for the CLI that prints what the API answered. */
export function projectionStatusFromJson(json: ReturnType<typeof projectionStatusJson>): ProjectionStatus {
  return {
    projection: json.projection,
    generation: json.generation ?? undefined,
    status: json.status,
    builtByVersion: json.built_by_version ?? undefined,
    codeVersion: json.code_version ?? undefined,
    position: json.position,
    eventsProcessed: BigInt(json.events_processed),
    updatedAt: json.updated_at ? new Date(json.updated_at) : undefined,
    lag: json.lag ? { eventsBehind: json.lag.events_behind, eventsBehindCapped: json.lag.events_behind_capped, msBehind: json.lag.ms_behind } : undefined,
  };
}
