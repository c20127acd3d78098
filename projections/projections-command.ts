import type { Database } from '../src/db/database.js';
import type { EventCatalogue } from '../src/eventstore/event-catalogue.js';
import type { EventStore } from '../src/eventstore/event-store.js';
import { ProjectionRunner } from './projection-runner.js';
import { formatStatuses, projectionStatuses } from './projection-status.js';
import type { Projection } from './projection.js';
import { rebuildProjection } from './rebuild-projection.js';

export interface ProjectionsCommandContext {
  readonly database: Database;
  readonly store: EventStore;
  readonly catalogue: EventCatalogue;
  readonly projections: readonly Projection[];
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  /** For `run`: resolves when the worker should stop (SIGTERM or SIGINT in the CLI). */
  readonly untilStopped: Promise<void>;
}

export const USAGE = ['usage: npm run projections -- status', '       npm run projections -- rebuild [name]', '       npm run projections -- run'];

/**
 * `status`, `rebuild [name]` and `run` (the projection worker); returns the exit code. Split from cli.ts
 * so tests run it on their own database.
 */
export async function runProjectionsCommand(args: readonly string[], context: ProjectionsCommandContext): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case 'status': {
      if (rest.length > 0) return usage(context);
      for (const line of formatStatuses(await projectionStatuses(context.database, context.store, context.projections))) context.out(line);
      return 0;
    }
    case 'rebuild': {
      if (rest.length > 1) return usage(context);
      const selected = rest[0] ? context.projections.filter((projection) => projection.name === rest[0]) : context.projections;
      if (rest[0] && selected.length === 0) {
        context.err(`unknown projection ${rest[0]}; known: ${context.projections.map((projection) => projection.name).join(', ') || 'none'}`);
        return 1;
      }
      if (selected.length === 0) context.out('no projections are registered (projections/registry.ts)');
      for (const projection of selected) {
        context.out(`rebuilding ${projection.name} into a fresh generation; the current one keeps serving reads`);
        const result = await rebuildProjection({
          database: context.database,
          store: context.store,
          catalogue: context.catalogue,
          projection,
          onProgress: ({ generation, eventsProcessed }) => context.out(`  ${projection.name} generation ${generation}: ${eventsProcessed} events`),
        });
        const seconds = result.elapsedMs / 1000;
        const rate = seconds > 0 ? Math.round(Number(result.eventsProcessed) / seconds) : 0;
        context.out(
          `${projection.name}: generation ${result.generation} now serves reads (${result.eventsProcessed} events in ${seconds.toFixed(1)} s, ${rate}/s)` +
            (result.retired.length ? `; dropped generation ${result.retired.join(', ')}` : ''),
        );
      }
      return 0;
    }
    case 'run':
      if (rest.length > 0) return usage(context);
      return runWorker(context);
    default:
      return usage(context);
  }
}

/**
 * Keeps every read model up to date until told to stop: the worker for gateways started with
 * PROJECTIONS=off. Several workers (or a worker and gateways that still project) are safe: each batch is
 * a compare-and-set on the projection's checkpoint, so only one of them writes it. A projection that stops
 * on an error (an event it cannot apply) stops the worker with exit code 1, for its supervisor to report.
 */
async function runWorker(context: ProjectionsCommandContext): Promise<number> {
  let failed = false;
  let failure: () => void = () => {};
  const failedOne = new Promise<void>((resolve) => (failure = resolve));
  const runners = context.projections.map(
    (projection) =>
      new ProjectionRunner({
        database: context.database,
        store: context.store,
        catalogue: context.catalogue,
        projection,
        onError: (error) => {
          context.err(`${projection.name} stopped: ${error.message}`);
          failed = true;
          failure();
        },
      }),
  );
  try {
    for (const runner of runners) await runner.start();
    context.out(`following the event log for ${runners.map((runner) => runner.name).join(', ') || 'no projections'}; stop with SIGTERM or Ctrl-C`);
    await Promise.race([context.untilStopped, failedOne]);
  } finally {
    await Promise.all(runners.map((runner) => runner.stop()));
  }
  context.out(failed ? 'stopped after a projection failed' : 'stopped');
  return failed ? 1 : 0;
}

function usage(context: ProjectionsCommandContext): number {
  for (const line of USAGE) context.err(line);
  return 2;
}
