import type { Database } from '../src/db/database.js';
import type { EventStore } from '../src/eventstore/event-store.js';
import { listCheckpoints, type GenerationStatus } from './projection-generations.js';
import { measureLag, type ProjectionLag } from './projection-lag.js';
import type { Projection } from './projection.js';

export interface ProjectionStatus {
  readonly projection: string;
  /** Undefined for a known projection that has never run here. */
  readonly generation: number | undefined;
  readonly status: GenerationStatus | 'not started';
  readonly builtByVersion: number | undefined;
  /** The version of the code in this build; undefined when the projection is no longer in the registry. */
  readonly codeVersion: number | undefined;
  readonly position: string | null;
  readonly eventsProcessed: bigint;
  readonly updatedAt: Date | undefined;
  readonly lag: ProjectionLag | undefined;
}

/** Every generation in the checkpoint table, plus the registered projections that never ran. */
export async function projectionStatuses(database: Database, store: EventStore, projections: readonly Projection[]): Promise<ProjectionStatus[]> {
  const rows = await listCheckpoints(database.kysely);
  const now = new Date();
  const statuses: ProjectionStatus[] = [];
  for (const row of rows) {
    statuses.push({
      projection: row.projection,
      generation: row.generation,
      status: row.status,
      builtByVersion: row.definition_version,
      codeVersion: projections.find((projection) => projection.name === row.projection)?.version,
      position: row.position,
      eventsProcessed: row.events_processed,
      updatedAt: row.updated_at,
      lag: row.status === 'retired' ? undefined : await measureLag(store, row.position, now),
    });
  }
  for (const projection of projections) {
    if (rows.some((row) => row.projection === projection.name)) continue;
    statuses.push({
      projection: projection.name,
      generation: undefined,
      status: 'not started',
      builtByVersion: undefined,
      codeVersion: projection.version,
      position: null,
      eventsProcessed: 0n,
      updatedAt: undefined,
      lag: undefined,
    });
  }
  return statuses;
}

/** A plain-text table for operators, one line per generation. */
export function formatStatuses(statuses: readonly ProjectionStatus[]): string[] {
  if (statuses.length === 0) return ['no projections'];
  const header = ['projection', 'generation', 'status', 'version', 'processed', 'behind', 'behind_ms', 'checkpoint', 'updated'];
  const lines = statuses.map((status) => [
    status.projection,
    status.generation === undefined ? '-' : String(status.generation),
    status.status,
    versionText(status),
    String(status.eventsProcessed),
    status.lag ? `${status.lag.eventsBehind}${status.lag.eventsBehindCapped ? '+' : ''}` : '-',
    status.lag ? String(status.lag.msBehind) : '-',
    status.position ?? (status.generation === undefined ? '-' : 'start'),
    status.updatedAt?.toISOString() ?? '-',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column]!.length)));
  return [header, ...lines].map((line) => line.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd());
}

function versionText(status: ProjectionStatus): string {
  if (status.builtByVersion === undefined) return String(status.codeVersion ?? '-');
  if (status.codeVersion === undefined) return `${status.builtByVersion} (not in this build)`;
  if (status.codeVersion !== status.builtByVersion) return `${status.builtByVersion} (code ${status.codeVersion}: rebuild)`;
  return String(status.builtByVersion);
}
