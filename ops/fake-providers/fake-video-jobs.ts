import { fakeId, type VideoScript } from './scripted-answer.js';

// [OAI-SPEC] VideoResource; statuses queued → in_progress → completed | failed.

export type FakeVideoStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

interface FakeVideoJob {
  readonly id: string;
  readonly model: string;
  readonly prompt: string;
  readonly seconds: string;
  readonly size: string;
  readonly createdAt: number;
  readonly script: VideoScript;
  /** Set by complete()/fail(), or the first time a scripted timing passes. */
  settled?: { status: 'completed' | 'failed'; at: number; error: { code: string; message: string } | null };
  /** A manual job the test moved on: in progress at this percentage. */
  progress?: number;
  deleted: boolean;
}

export interface FakeVideoRequest {
  readonly model: string | undefined;
  readonly prompt: string | undefined;
  readonly seconds: string | undefined;
  readonly size: string | undefined;
}

/** Some bytes that start like an MP4 (`ftyp` box), so content checks have something to look at. */
export const FAKE_MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42\0\0\0\0mp42isom'), Buffer.alloc(1000, 7)]);

/**
 * The fake's video jobs. Status is derived from the clock when a job is read (no timers to leak), unless
 * the script is manual, or the test settled the job with `complete(id)` / `fail(id)`.
 */
export class FakeVideoJobs {
  private readonly jobs = new Map<string, FakeVideoJob>();
  /** Jobs by the `Idempotency-Key` they were created with: the same key again answers the same job. */
  private readonly byIdempotencyKey = new Map<string, string>();
  /** `POST /v1/videos` requests that made a new job (a repeated idempotency key makes none). */
  created = 0;

  constructor(private readonly now: () => number = Date.now) {}

  create(request: FakeVideoRequest, script: VideoScript = {}, idempotencyKey?: string): Record<string, unknown> {
    const known = idempotencyKey === undefined ? undefined : this.byIdempotencyKey.get(idempotencyKey);
    if (known !== undefined) return this.resource(this.job(known));
    this.created++;
    const job: FakeVideoJob = {
      id: fakeId('video_fake'),
      model: request.model ?? 'sora-2',
      prompt: request.prompt ?? '',
      seconds: request.seconds ?? '4',
      size: request.size ?? '720x1280',
      createdAt: this.now(),
      script,
      deleted: false,
    };
    this.jobs.set(job.id, job);
    if (idempotencyKey !== undefined) this.byIdempotencyKey.set(idempotencyKey, job.id);
    return this.resource(job);
  }

  /** The file's size as the script says (`contentBytes`), or the small MP4's. */
  contentBytes(id: string): number {
    return this.job(id).script.contentBytes ?? FAKE_MP4.length;
  }

  /** A manual job moves on: in progress at `progress` percent. */
  advance(id: string, progress: number): void {
    this.job(id).progress = progress;
  }

  /** The job as `GET /v1/videos/{id}` shows it; `undefined` when unknown or deleted. */
  get(id: string): Record<string, unknown> | undefined {
    const job = this.jobs.get(id);
    return job && !job.deleted ? this.resource(job) : undefined;
  }

  status(id: string): FakeVideoStatus | undefined {
    const job = this.jobs.get(id);
    return job && !job.deleted ? this.statusOf(job) : undefined;
  }

  complete(id: string): void {
    this.job(id).settled = { status: 'completed', at: this.now(), error: null };
  }

  fail(id: string, error: { code: string; message: string } = { code: 'internal_error', message: 'the video could not be generated' }): void {
    this.job(id).settled = { status: 'failed', at: this.now(), error };
  }

  delete(id: string): boolean {
    const job = this.jobs.get(id);
    if (!job || job.deleted) return false;
    job.deleted = true;
    return true;
  }

  ids(): string[] {
    return [...this.jobs.keys()];
  }

  private job(id: string): FakeVideoJob {
    const job = this.jobs.get(id);
    if (!job) throw new Error(`no fake video job ${id}`);
    return job;
  }

  private statusOf(job: FakeVideoJob): FakeVideoStatus {
    if (job.settled) return job.settled.status;
    const { script } = job;
    if (script.manual) return job.progress === undefined ? 'queued' : 'in_progress';
    const elapsed = this.now() - job.createdAt;
    if (script.failAfterMs !== undefined && elapsed >= script.failAfterMs) {
      job.settled = { status: 'failed', at: job.createdAt + script.failAfterMs, error: script.failure ?? { code: 'internal_error', message: 'the video could not be generated' } };
      return 'failed';
    }
    const completeAfter = script.completeAfterMs ?? 50;
    if (script.failAfterMs === undefined && elapsed >= completeAfter) {
      job.settled = { status: 'completed', at: job.createdAt + completeAfter, error: null };
      return 'completed';
    }
    return elapsed >= (script.inProgressAfterMs ?? 10) ? 'in_progress' : 'queued';
  }

  private resource(job: FakeVideoJob): Record<string, unknown> {
    const status = this.statusOf(job);
    const seconds = (ms: number): number => Math.floor(ms / 1000);
    return {
      id: job.id,
      object: 'video',
      model: job.model,
      status,
      progress: status === 'completed' ? 100 : status === 'in_progress' ? (job.progress ?? 50) : 0,
      created_at: seconds(job.createdAt),
      completed_at: job.settled?.status === 'completed' ? seconds(job.settled.at) : null,
      expires_at: job.settled?.status === 'completed' ? seconds(job.settled.at) + 3600 : null,
      prompt: job.prompt,
      size: job.size,
      seconds: job.seconds,
      remixed_from_video_id: null,
      error: job.settled?.error ?? null,
    };
  }
}
