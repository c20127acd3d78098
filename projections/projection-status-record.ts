import type { ProjectionStatusRecord } from '../src/admin-records.js';
import type { ProjectionStatus } from './projection-status.js';

/**
 * A projection's status as the admin API answers it (`GET /admin/v1/projections`,
 * src/admin/projection-routes.ts), and back, for `npm run projections -- status` run through that API
 * (remote-projections-command.ts), which prints what the local command prints.
 */
export function renderProjectionStatus(status: ProjectionStatus): ProjectionStatusRecord {
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

export function projectionStatusFromRecord(record: ProjectionStatusRecord): ProjectionStatus {
  return {
    projection: record.projection,
    generation: record.generation ?? undefined,
    status: record.status,
    builtByVersion: record.built_by_version ?? undefined,
    codeVersion: record.code_version ?? undefined,
    position: record.position,
    eventsProcessed: BigInt(record.events_processed),
    updatedAt: record.updated_at ? new Date(record.updated_at) : undefined,
    lag: record.lag ? { eventsBehind: record.lag.events_behind, eventsBehindCapped: record.lag.events_behind_capped, msBehind: record.lag.ms_behind } : undefined,
  };
}
