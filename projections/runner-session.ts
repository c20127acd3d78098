import { sql } from 'kysely';
import type { Database } from '../src/db/database.js';
import { isConnectionFailure } from '../src/errors/connection-failure.js';
import { UnknownEventTypeError, type EventCatalogue } from '../src/eventstore/event-catalogue.js';
import type { EventStore, GlobalPosition, RecordedEvent, Subscription } from '../src/eventstore/event-store.js';
import { readCheckpoint, useGeneration, type CheckpointRow } from './projection-generations.js';
import type { Projection } from './projection.js';

/**
 * One subscription of a projection runner (projection-runner.ts), from one checkpoint of one generation:
 * it batches events, applies each batch and its checkpoint in one transaction, and halts on the first
 * failure for the runner to restart or report.
 */

const DEFAULT_READ_INTERVAL_MS = 100;

export interface ProjectionRunnerOptions {
  readonly database: Database;
  readonly store: EventStore;
  /** Every event type of the log: a type it does not know stops the runner (a newer writer, or a bug). */
  readonly catalogue: EventCatalogue;
  readonly projection: Projection;
  /** 'active' (default): the generation serving reads, following a rebuild when it is swapped in. A number: that generation (a rebuild fills it). */
  readonly generation?: 'active' | number;
  /** Most events per transaction. */
  readonly batchSize?: number;
  /**
   * Once caught up, how often the runner reads new events (ms, default 100). Each read becomes one
   * transaction: under a steady stream of requests, reading on every append cost a transaction per
   * append; a tenth of a second of delay lets one transaction take them all.
   */
  readonly readIntervalMs?: number;
  /** Called once if the runner stops on an error (unknown event, data that fits no schema, a bug in the row updates). */
  readonly onError?: (error: ProjectionFailedError) => void;
}

/** The runner stopped; `cause` says why, the message says where. The checkpoint stays before the failing event. */
export class ProjectionFailedError extends Error {
  override name = 'ProjectionFailedError';
}

/** The version of the code differs from the one that built the tables: they need a rebuild. */
export class ProjectionVersionError extends Error {
  override name = 'ProjectionVersionError';
}

/** Another runner of the projection committed a batch: this one re-reads the checkpoint and carries on from there. */
export class CheckpointMovedError extends Error {}
/** The generation stopped serving reads (a rebuild was swapped in) or was dropped. */
export class GenerationChangedError extends Error {}

/** The halt reason of a session stopped on purpose (not an error to report). */
export const STOPPED = new Error('the runner session was stopped');

/** One subscription of a runner, from one checkpoint of one generation; replaced after a restart. */
export class RunnerSession {
  position: string | null;
  private haltReason: unknown;
  private buffer: RecordedEvent[] = [];
  /** Where a filtered subscription has read to, past every buffered event; stored with the buffer's last batch. */
  private walked: string | undefined;
  private walkTimer: NodeJS.Timeout | undefined;
  private lastWriteAt = 0;
  private chain: Promise<void> = Promise.resolve();
  private flushScheduled = false;
  private readonly batchSize: number;
  private readonly readIntervalMs: number;
  private readonly handled: ReadonlySet<string>;
  private readonly subscription: Subscription;

  constructor(
    private readonly options: ProjectionRunnerOptions,
    readonly checkpoint: CheckpointRow,
    private readonly mustBeActive: boolean,
    private readonly onHalt: (session: RunnerSession, error: unknown) => void,
  ) {
    this.position = checkpoint.position;
    this.batchSize = options.batchSize ?? 500;
    this.readIntervalMs = options.readIntervalMs ?? DEFAULT_READ_INTERVAL_MS;
    this.handled = new Set(options.projection.handles.map((definition) => definition.type));
    const streams = options.projection.streams;
    this.subscription = options.store.subscribe(
      {
        from: (this.position as GlobalPosition | null) ?? 'start',
        minReadIntervalMs: this.readIntervalMs,
        ...(streams ? { streamPrefixes: streams, onProgress: (position: GlobalPosition) => this.walkedTo(position) } : {}),
      },
      (event) => this.receive(event),
      (error) => this.halt(error),
    );
  }

  async caughtUp(): Promise<void> {
    await this.subscription.caughtUp();
    await this.flush();
  }

  async stop(): Promise<void> {
    await this.subscription.stop();
    clearTimeout(this.walkTimer);
    await this.flush().catch(() => {});
    this.haltReason ??= STOPPED;
  }

  private async receive(event: RecordedEvent): Promise<void> {
    if (this.haltReason !== undefined) throw this.haltReason;
    // Progress reported before this event is behind it: the event's own position supersedes it.
    this.walked = undefined;
    this.buffer.push(event);
    if (this.buffer.length >= this.batchSize) return this.flush();
    // Everything the subscription delivers from one page arrives before this runs: one transaction per page.
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        this.flush().catch(() => {});
      });
    }
  }

  /**
   * A filtered subscription read past events of other streams. The checkpoint follows (so that a restart
   * and the lag count do not walk them again) with the next batch, or on its own at most once per read
   * interval: a busy log of other streams costs one small transaction that often, not one per page.
   */
  private walkedTo(position: GlobalPosition): void {
    if (this.haltReason !== undefined) return;
    this.walked = position;
    if (this.buffer.length > 0 || this.flushScheduled || this.walkTimer) return;
    const wait = Math.max(0, this.lastWriteAt + this.readIntervalMs - Date.now());
    this.walkTimer = setTimeout(() => {
      this.walkTimer = undefined;
      this.flush().catch(() => {});
    }, wait);
    this.walkTimer.unref();
  }

  private flush(): Promise<void> {
    const run = this.chain.then(async () => {
      while ((this.buffer.length > 0 || this.walked !== undefined) && this.haltReason === undefined) {
        const batch = this.buffer.splice(0, this.batchSize);
        const walked = this.buffer.length === 0 ? this.walked : undefined;
        if (this.buffer.length === 0) this.walked = undefined;
        await this.applyBatch(batch, walked);
      }
      if (this.haltReason !== undefined && this.haltReason !== STOPPED) throw this.haltReason;
    });
    this.chain = run.catch((error: unknown) => this.halt(error));
    return run;
  }

  /** Applies `batch` and moves the checkpoint to its last event, or to `walked` (read past it) when given. */
  private async applyBatch(batch: RecordedEvent[], walked: string | undefined): Promise<void> {
    const { projection, catalogue, database } = this.options;
    const decoded: RecordedEvent[] = [];
    let through = 0;
    let failure: unknown;
    for (const event of batch) {
      try {
        if (this.handled.has(event.type)) decoded.push(catalogue.decode(event));
        else if (!catalogue.knows(event.type)) throw new UnknownEventTypeError(event.type, `${event.streamId}@${event.revision}`);
      } catch (error) {
        failure = new ProjectionFailedError(`projection ${projection.name} stopped at ${event.streamId}@${event.revision} (${event.type}): ${(error as Error).message}`, {
          cause: error,
        });
        break;
      }
      through++;
    }
    const checkpoint = failure === undefined && walked !== undefined ? walked : through > 0 ? batch[through - 1]!.position : undefined;
    if (checkpoint !== undefined) {
      const { generation } = this.checkpoint;
      await database.kysely.transaction().execute(async (trx) => {
        const row = await readCheckpoint(trx, projection.name, generation, true);
        if (!row || (this.mustBeActive && row.status !== 'active')) throw new GenerationChangedError(`${projection.name}: generation ${generation} no longer serves reads`);
        if (row.position !== this.position) throw new CheckpointMovedError(`${projection.name}: another runner moved the checkpoint`);
        // A batch with nothing to apply (events of other types, or only a position read past) moves the checkpoint alone.
        if (decoded.length > 0) {
          await useGeneration(trx, projection.name, generation);
          if (projection.applyBatch) await rethrowWithContext(projection.name, decoded, () => projection.applyBatch(trx, decoded));
          else for (const event of decoded) await rethrowWithContext(projection.name, [event], () => projection.apply(trx, event));
        }
        await sql`update projection_checkpoints set position = ${checkpoint}, events_processed = events_processed + ${through}, updated_at = now()
          where projection = ${projection.name} and generation = ${generation}`.execute(trx);
      });
      this.position = checkpoint;
      this.lastWriteAt = Date.now();
    }
    if (failure) throw failure;
  }

  /** Gives up this session (the runner opens a new one); a batch being written finishes or fails on its own. */
  abandon(reason: unknown): void {
    this.halt(reason);
  }

  private halt(error: unknown): void {
    if (this.haltReason !== undefined) return;
    this.haltReason = error;
    this.buffer = [];
    this.walked = undefined;
    clearTimeout(this.walkTimer);
    void this.subscription.stop();
    this.onHalt(this, error);
  }
}

/** Says which event (or which batch) the row updates failed on; connection trouble passes through. */
async function rethrowWithContext(name: string, events: readonly RecordedEvent[], apply: () => Promise<void>): Promise<void> {
  try {
    await apply();
  } catch (error) {
    if (isTransient(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const first = events[0]!;
    const where = `${first.streamId}@${first.revision} (${first.type})`;
    const last = events.at(-1)!;
    const what = events.length === 1 ? where : `a batch of ${events.length} events from ${where} to ${last.streamId}@${last.revision} (${last.type})`;
    throw new ProjectionFailedError(`projection ${name} failed to apply ${what}: ${message}`, { cause: error });
  }
}

/** A dropped connection or a database restart: worth resuming from the checkpoint after a pause. */
export function isTransient(error: unknown): boolean {
  if (isConnectionFailure(error)) return true;
  // serialization failure, deadlock, and class 53 (insufficient resources): worth another try too
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && (code === '40001' || code === '40P01' || code.startsWith('53'));
}
