import { sql } from 'kysely';
import type { Database } from '../src/db/database.js';
import { UnknownEventTypeError, type EventCatalogue } from '../src/eventstore/event-catalogue.js';
import type { EventStore, GlobalPosition, RecordedEvent, Subscription } from '../src/eventstore/event-store.js';
import { ensureActiveGeneration, GENERATION_CHANGED_CHANNEL, readCheckpoint, useGeneration, type CheckpointRow } from './projection-generations.js';
import { measureLag, type ProjectionLag } from './projection-lag.js';
import type { Projection } from './projection.js';

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

const DEFAULT_READ_INTERVAL_MS = 100;

/** The runner stopped; `cause` says why, the message says where. The checkpoint stays before the failing event. */
export class ProjectionFailedError extends Error {
  override name = 'ProjectionFailedError';
}

/** The version of the code differs from the one that built the tables: they need a rebuild. */
export class ProjectionVersionError extends Error {
  override name = 'ProjectionVersionError';
}

/** Another runner of the projection committed a batch: this one re-reads the checkpoint and carries on from there. */
class CheckpointMovedError extends Error {}
/** The generation stopped serving reads (a rebuild was swapped in) or was dropped. */
class GenerationChangedError extends Error {}

/**
 * Applies a projection's events to its read model. Each batch and the checkpoint after it are written in
 * one transaction, so a crash replays nothing twice and loses nothing (exactly once in effect).
 *
 * One writer per projection: the batch transaction first locks the checkpoint row (`for update`) and
 * compares it with where this runner left it; if another runner moved it, the batch rolls back and this
 * runner resumes from the stored checkpoint. This compare-and-set needs no session state, so it holds on
 * PGlite (one session) as well as across gateway instances on Postgres; two runners only cost duplicate reads.
 */
export class ProjectionRunner {
  private current: Promise<RunnerSession> | undefined;
  private session: RunnerSession | undefined;
  private stopped = false;
  private failure: ProjectionFailedError | undefined;
  private restartCount = 0;
  private unlisten: Promise<() => Promise<void>> | undefined;
  private generationCheck: NodeJS.Timeout | undefined;

  constructor(private readonly options: ProjectionRunnerOptions) {}

  get name(): string {
    return this.options.projection.name;
  }
  /** The error that stopped the runner, if one did. */
  get error(): ProjectionFailedError | undefined {
    return this.failure;
  }
  /** Times it resumed after another runner moved the checkpoint, a swap, or a dropped connection. */
  get restarts(): number {
    return this.restartCount;
  }
  get position(): string | null | undefined {
    return this.session?.position;
  }
  get generation(): number | undefined {
    return this.session?.checkpoint.generation;
  }

  async start(): Promise<void> {
    if ((this.options.generation ?? 'active') === 'active') {
      // A swap is announced by NOTIFY; the timer covers a notification lost while the listener reconnects.
      this.unlisten = this.options.database.listen(GENERATION_CHANGED_CHANNEL, (name) => {
        if (name === this.name) void this.checkGeneration();
      });
      this.unlisten.catch(() => {});
      this.generationCheck = setInterval(() => void this.checkGeneration(), GENERATION_CHECK_MS);
      this.generationCheck.unref();
    }
    this.current = this.open();
    try {
      await this.current;
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /** Resolves once every event committed before the call is applied (and its checkpoint committed). */
  async caughtUp(): Promise<void> {
    for (;;) {
      if (this.failure) throw this.failure;
      if (this.stopped || !this.current) throw new Error(`projection ${this.name}: the runner is not running`);
      const pending = this.current;
      const session = await pending;
      try {
        await session.caughtUp();
        if (pending === this.current) return;
      } catch (error) {
        if (pending === this.current && !this.failure) throw error;
      }
    }
  }

  async lag(): Promise<ProjectionLag> {
    const session = this.session;
    if (!session) throw new Error(`projection ${this.name}: the runner is not running`);
    return measureLag(this.options.store, session.position);
  }

  /** Stops following; events already received are applied first. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.stopWatchingSwaps();
    const session = await this.current?.catch(() => undefined);
    await session?.stop();
  }

  private async stopWatchingSwaps(): Promise<void> {
    clearInterval(this.generationCheck);
    const unlisten = await this.unlisten?.catch(() => undefined);
    this.unlisten = undefined;
    await unlisten?.().catch(() => {});
  }

  /** Moves to the active generation if a rebuild swapped one in. */
  private async checkGeneration(): Promise<void> {
    const session = this.session;
    if (!session || this.stopped) return;
    const row = await readCheckpoint(this.options.database.kysely, this.name, session.checkpoint.generation).catch(() => 'unknown' as const);
    if (row === 'unknown' || row?.status === 'active') return;
    session.abandon(new GenerationChangedError(`${this.name}: generation ${session.checkpoint.generation} no longer serves reads`));
  }

  private async open(): Promise<RunnerSession> {
    const { database, projection } = this.options;
    const wanted = this.options.generation ?? 'active';
    const checkpoint = wanted === 'active' ? await ensureActiveGeneration(database, projection) : await readCheckpoint(database.kysely, projection.name, wanted);
    if (!checkpoint) throw new ProjectionFailedError(`projection ${projection.name}: generation ${wanted} does not exist`);
    if (checkpoint.definition_version !== projection.version) {
      throw new ProjectionVersionError(
        `projection ${projection.name}: generation ${checkpoint.generation} was built by version ${checkpoint.definition_version} of its code, this is version ${projection.version}; run \`npm run projections -- rebuild ${projection.name}\``,
      );
    }
    const session = new RunnerSession(this.options, checkpoint, wanted === 'active', (halted, error) => this.onHalt(halted, error));
    this.session = session;
    if (this.stopped) await session.stop();
    return session;
  }

  private onHalt(session: RunnerSession, error: unknown): void {
    if (this.stopped || session !== this.session) return;
    const following = (this.options.generation ?? 'active') === 'active';
    if (error instanceof CheckpointMovedError || (following && error instanceof GenerationChangedError)) this.restart(20 + Math.random() * 80);
    else if (isTransient(error)) this.restart(1_000);
    else this.fail(error);
  }

  /** Opens a new session from the stored checkpoint, waiting out a database that is away. */
  private restart(delayMs: number): void {
    this.restartCount++;
    this.current = (async () => {
      for (let attempt = 0; ; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, attempt === 0 ? delayMs : Math.min(5_000, 250 * 2 ** attempt)));
        if (this.stopped) throw new Error(`projection ${this.name}: the runner is stopped`);
        try {
          return await this.open();
        } catch (error) {
          if (isTransient(error)) continue;
          this.fail(error);
          throw this.failure;
        }
      }
    })();
    this.current.catch(() => {});
  }

  private fail(error: unknown): void {
    if (this.failure) return;
    this.failure =
      error instanceof ProjectionFailedError
        ? error
        : new ProjectionFailedError(`projection ${this.name} stopped: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    this.stopped = true;
    void this.stopWatchingSwaps();
    this.options.onError?.(this.failure);
  }
}

const GENERATION_CHECK_MS = 5_000;

/** The halt reason of a session stopped on purpose (not an error to report). */
const STOPPED = new Error('the runner session was stopped');

/** One subscription of a runner, from one checkpoint of one generation; replaced after a restart. */
class RunnerSession {
  position: string | null;
  private haltReason: unknown;
  private buffer: RecordedEvent[] = [];
  private chain: Promise<void> = Promise.resolve();
  private flushScheduled = false;
  private readonly batchSize: number;
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
    this.handled = new Set(options.projection.handles.map((definition) => definition.type));
    this.subscription = options.store.subscribe(
      { from: (this.position as GlobalPosition | null) ?? 'start', minReadIntervalMs: options.readIntervalMs ?? DEFAULT_READ_INTERVAL_MS },
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
    await this.flush().catch(() => {});
    this.haltReason ??= STOPPED;
  }

  private async receive(event: RecordedEvent): Promise<void> {
    if (this.haltReason !== undefined) throw this.haltReason;
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

  private flush(): Promise<void> {
    const run = this.chain.then(async () => {
      while (this.buffer.length > 0 && this.haltReason === undefined) await this.applyBatch(this.buffer.splice(0, this.batchSize));
      if (this.haltReason !== undefined && this.haltReason !== STOPPED) throw this.haltReason;
    });
    this.chain = run.catch((error: unknown) => this.halt(error));
    return run;
  }

  private async applyBatch(batch: RecordedEvent[]): Promise<void> {
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
    if (through > 0) {
      const last = batch[through - 1]!.position;
      const { generation } = this.checkpoint;
      await database.kysely.transaction().execute(async (trx) => {
        const row = await readCheckpoint(trx, projection.name, generation, true);
        if (!row || (this.mustBeActive && row.status !== 'active')) throw new GenerationChangedError(`${projection.name}: generation ${generation} no longer serves reads`);
        if (row.position !== this.position) throw new CheckpointMovedError(`${projection.name}: another runner moved the checkpoint`);
        await useGeneration(trx, projection.name, generation);
        if (decoded.length > 0) {
          if (projection.applyBatch) await rethrowWithContext(projection.name, decoded, () => projection.applyBatch(trx, decoded));
          else for (const event of decoded) await rethrowWithContext(projection.name, [event], () => projection.apply(trx, event));
        }
        await sql`update projection_checkpoints set position = ${last}, events_processed = events_processed + ${through}, updated_at = now()
          where projection = ${projection.name} and generation = ${generation}`.execute(trx);
      });
      this.position = last;
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
function isTransient(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string') return error instanceof Error && /Connection terminated|connection timeout/i.test(error.message);
  return /^(08|57P0|53)/.test(code) || ['40001', '40P01', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code);
}
