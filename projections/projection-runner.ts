import { ensureActiveGeneration, GENERATION_CHANGED_CHANNEL, readCheckpoint } from './projection-generations.js';
import { measureLag, type ProjectionLag } from './projection-lag.js';
import { CheckpointMovedError, GenerationChangedError, isTransient, ProjectionFailedError, ProjectionVersionError, RunnerSession, type ProjectionRunnerOptions } from './runner-session.js';

export { ProjectionFailedError, ProjectionVersionError, type ProjectionRunnerOptions } from './runner-session.js';

const GENERATION_CHECK_MS = 5_000;

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
