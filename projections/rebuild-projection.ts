import type { Database } from '../src/db/database.js';
import type { EventCatalogue } from '../src/eventstore/event-catalogue.js';
import type { EventStore } from '../src/eventstore/event-store.js';
import { activateGeneration, createBuildingGeneration, dropGeneration, readCheckpoint } from './projection-generations.js';
import { ProjectionRunner } from './projection-runner.js';
import type { Projection } from './projection.js';

export interface RebuildOptions {
  readonly database: Database;
  readonly store: EventStore;
  readonly catalogue: EventCatalogue;
  readonly projection: Projection;
  readonly batchSize?: number;
  /** Called now and then while the new generation fills. */
  readonly onProgress?: (progress: { generation: number; eventsProcessed: bigint }) => void;
}

export interface RebuildResult {
  readonly generation: number;
  readonly eventsProcessed: bigint;
  readonly retired: number[];
  readonly elapsedMs: number;
}

/**
 * Blue/green rebuild: fills a fresh generation from the start of the log while the active one keeps
 * serving reads (and its runner keeps applying new events), then swaps the views over in one
 * transaction and drops the old generation. The gateway's runner notices the swap at its next batch
 * and carries on with the new generation from where the rebuild stopped. On failure the half-built
 * generation is dropped and the active one is untouched.
 */
export async function rebuildProjection(options: RebuildOptions): Promise<RebuildResult> {
  const { database, projection, onProgress } = options;
  const started = performance.now();
  const generation = await createBuildingGeneration(database, projection);
  const runner = new ProjectionRunner({ ...options, generation, batchSize: options.batchSize ?? 2_000 });
  const progress = onProgress
    ? setInterval(() => {
        void readCheckpoint(database.kysely, projection.name, generation).then(
          (row) => row && onProgress({ generation, eventsProcessed: row.events_processed }),
          () => {},
        );
      }, 1_000)
    : undefined;
  try {
    await runner.start();
    await runner.caughtUp();
    await runner.stop();
    if (runner.error) throw runner.error;
    const retired = await activateGeneration(database, projection, generation, runner.position ?? null);
    const row = await readCheckpoint(database.kysely, projection.name, generation);
    return { generation, eventsProcessed: row?.events_processed ?? 0n, retired, elapsedMs: performance.now() - started };
  } catch (error) {
    await runner.stop().catch(() => {});
    await dropGeneration(database, projection.name, generation).catch(() => {});
    throw error;
  } finally {
    if (progress) clearInterval(progress);
  }
}
