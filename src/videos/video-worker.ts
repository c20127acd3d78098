import type { AccessDirectory } from '../access/access-directory.js';
import { createUsage } from '../billing/usage.js';
import type { CatalogModel } from '../catalog/catalog.js';
import type { CatalogStore } from '../catalog/catalog-store.js';
import { chargeOf } from '../catalog/pricing.js';
import { appliedPrice, recordedPrice, type AppliedPrice } from '../prices/applied-price.js';
import type { PriceList } from '../prices/price-book.js';
import type { Clock } from '../clock.js';
import { isGatewayError } from '../errors/gateway-error.js';
import type { Accounts } from '../ledger/accounts.js';
import type { Logger } from '../logger.js';
import { isFinished, type VideoJobState } from './video-decider.js';
import type { VideoFailure } from './video-events.js';
import type { VideoJobStore } from './video-job-store.js';
import type { ProviderVideo, VideoProvider } from './video-provider.js';

/** Spec 8: a job that has not finished one hour after it was submitted (or queued, if it never was) fails as `timeout`. */
export const VIDEO_JOB_TIMEOUT_MS = 60 * 60_000;
/** How often the worker looks at the pending jobs (a revoked key fails its job within about this long). */
export const VIDEO_TICK_MS = 1_000;
/** Polls of one job back off from 1 s to this. */
const MAX_POLL_INTERVAL_MS = 15_000;
/** Jobs advanced at once in a tick: each may wait on the provider. */
const PARALLEL_JOBS = 4;
const CAUSED_BY = 'system:video-worker';
/** How much longer than the provider's timeout a started submission is left to the worker that started it. */
const SUBMISSION_LEASE_MARGIN_MS = 5_000;

/** A job with something left to do, as the video read model knows it: enough to tell whether it needs looking at now. */
export interface PendingVideoJob {
  readonly videoId: string;
  readonly keyId: string;
  readonly status: 'queued' | 'in_progress' | 'completed' | 'failed';
  /** When its hour started: its submission, or its creation if it was never submitted. */
  readonly since: Date;
}

/** The jobs not finished, or finished and not yet billed, oldest first (the video read model). */
export type ListPendingVideoJobs = (limit: number) => Promise<PendingVideoJob[]>;

export interface VideoWorkerDependencies {
  readonly jobs: VideoJobStore;
  readonly accounts: Accounts;
  readonly directory: AccessDirectory;
  readonly catalog: CatalogStore;
  /** The price versions: a job is billed at the one its seconds were reserved at. */
  readonly prices: PriceList;
  readonly provider: VideoProvider;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly listPending: ListPendingVideoJobs;
}

/**
 * Moves video jobs through their states (spec 3) from what their events say, so that any instance, or the
 * same one after a restart, continues where the last one stopped: a queued job is submitted (its intent
 * recorded first), a submitted one polled with backoff until the provider completes or fails it, a job past
 * its hour or whose key was revoked failed (and cancelled at the provider where it was sent), and a
 * finished job billed: its reservation settled for the seconds delivered, or released when it failed.
 * Every transition is decided on the job's stream with its expected revision: two workers never decide one twice.
 */
export class VideoWorker {
  /** When each job is next polled, and how many polls it has had (per instance: a restart polls at once). */
  private readonly polls = new Map<string, { readonly at: number; readonly count: number }>();
  /** Jobs being advanced in this process: a tick and a kick never work on one job at once. */
  private readonly advancing = new Set<string>();

  constructor(private readonly deps: VideoWorkerDependencies) {}

  /**
   * One pass over the pending jobs (the job scheduler's tick). A running job whose poll is not due, whose
   * key is valid and whose hour is not up is passed over without reading its stream: with many jobs
   * running, a tick reads only the ones with something to do.
   */
  async tick(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    const pending = (await this.deps.listPending(200)).filter((job) => this.needsLooking(job, now)).map((job) => job.videoId);
    const workers = Array.from({ length: PARALLEL_JOBS }, async () => {
      for (let videoId = pending.shift(); videoId !== undefined; videoId = pending.shift()) await this.advance(videoId);
    });
    await Promise.all(workers);
  }

  private needsLooking(job: PendingVideoJob, now: number): boolean {
    if (job.status !== 'in_progress') return true;
    const key = this.deps.directory.key(job.keyId);
    if (!key || key.revoked || now - job.since.getTime() >= VIDEO_JOB_TIMEOUT_MS) return true;
    const due = this.polls.get(job.videoId);
    return due === undefined || due.at <= now;
  }

  /** Moves one job as far as it can go now; a failure is logged and left to the next tick. */
  async advance(videoId: string): Promise<void> {
    if (this.advancing.has(videoId)) return;
    this.advancing.add(videoId);
    try {
      let { state } = await this.deps.jobs.load(videoId);
      if (!state.exists) return;
      if (!isFinished(state)) state = await this.progress(state);
      if (isFinished(state) && state.charged === undefined) await this.bill(state);
      if (isFinished(state)) this.polls.delete(videoId);
    } catch (error) {
      this.deps.logger.warn({ err: error, videoId }, 'could not advance a video job; the next tick tries again');
    } finally {
      this.advancing.delete(videoId);
    }
  }

  private async progress(state: VideoJobState): Promise<VideoJobState> {
    const now = this.deps.clock.now().getTime();
    const key = this.deps.directory.key(state.keyId);
    if (!key || key.revoked) return this.fail(state, 'key_revoked', 'the API key was revoked while the job ran');
    if (now - Date.parse(state.submittedAt ?? state.queuedAt) >= VIDEO_JOB_TIMEOUT_MS) return this.fail(state, 'timeout', 'the job did not finish within one hour');
    const model = this.deps.catalog.findModel(state.model);
    if (!model) return this.fail(state, 'provider_error', `the model ${state.model} is no longer in the catalog`);
    if (state.status === 'queued') return this.submit(state, model);
    const due = this.polls.get(state.videoId);
    if (due && due.at > now) return state;
    this.polls.set(state.videoId, { at: now + Math.min(1_000 * 2 ** (due?.count ?? 0), MAX_POLL_INTERVAL_MS), count: (due?.count ?? 0) + 1 });
    const answer = await this.deps.provider.read(model, state.providerVideoId!);
    if (answer.kind === 'refused') return this.fail(state, 'provider_error', answer.message);
    if (answer.kind === 'unavailable') return state;
    return this.follow(state, answer.video);
  }

  /**
   * Records the intent, then submits with the job's idempotency key. A worker that dies after the provider
   * took the job but before `VideoJobSubmitted` leaves the intent behind; the next worker submits again
   * once the intent's lease (the provider's timeout and a margin) has passed, with the same key, and a
   * provider that honours idempotency keys answers with the same job. (docs/client-guide.md, video jobs:
   * what happens with a provider that does not.)
   */
  private async submit(state: VideoJobState, model: CatalogModel): Promise<VideoJobState> {
    let started;
    try {
      // a submission in flight lasts at most the provider's timeout: past it, its worker is gone or gave up
      started = await this.deps.jobs.execute(state.videoId, { type: 'StartSubmission', leaseMs: model.provider.timeoutMs + SUBMISSION_LEASE_MARGIN_MS }, CAUSED_BY);
    } catch (error) {
      if (isGatewayError(error) && error.code === 'service_unavailable') return state; // another worker holds the submission
      throw error;
    }
    if (started.events.length === 0) return started.state;
    const answer = await this.deps.provider.submit(model, started.state);
    if (answer.kind === 'refused') return this.fail(started.state, 'provider_error', answer.message);
    if (answer.kind === 'unavailable') return started.state; // tried again once the intent's lease has passed, with the same key
    const submitted = await this.deps.jobs.execute(state.videoId, { type: 'RecordSubmission', providerVideoId: answer.video.id }, CAUSED_BY);
    this.polls.set(state.videoId, { at: this.deps.clock.now().getTime() + 1_000, count: 1 });
    return this.follow(submitted.state, answer.video);
  }

  /** The provider's view of a submitted job, recorded: completed, failed, or further along. */
  private async follow(state: VideoJobState, video: ProviderVideo): Promise<VideoJobState> {
    switch (video.status) {
      case 'completed':
        return (await this.deps.jobs.execute(state.videoId, { type: 'CompleteVideoJob', seconds: video.seconds ?? state.seconds }, CAUSED_BY)).state;
      case 'failed':
        return this.fail(state, 'provider_error', video.error ?? 'the provider failed the job');
      case 'queued':
      case 'in_progress':
        return (await this.deps.jobs.execute(state.videoId, { type: 'RecordProgress', progress: video.progress }, CAUSED_BY)).state;
    }
  }

  private async fail(state: VideoJobState, error: VideoFailure, message: string): Promise<VideoJobState> {
    const failed = await this.deps.jobs.execute(state.videoId, { type: 'FailVideoJob', error, message }, CAUSED_BY);
    const model = this.deps.catalog.findModel(state.model);
    // the provider's copy is of no use any more: cancelled where the provider allows it (best effort)
    if (failed.events.length > 0 && state.providerVideoId && model && error !== 'provider_error') await this.deps.provider.cancel(model, state.providerVideoId);
    return failed.state;
  }

  /**
   * Closes the finished job's reservation, then records what it charged: settled for the seconds delivered
   * (priced by the one pricing function at the price version of its reserve, whatever the catalog says
   * now), or released when the job failed (nothing charged, spec 3 rule 1).
   * Closing an already closed reservation decides nothing, so a worker that died between the two steps
   * repeats the first harmlessly.
   */
  private async bill(state: VideoJobState): Promise<void> {
    const { orgId, videoId } = state;
    let charged = 0n;
    const price = state.status === 'completed' ? this.priceOf(state) : undefined;
    // a completed job whose price cannot be found (a log without its price stream) is released: the loss is ours
    if (state.status === 'completed' && !price) this.deps.logger.error({ videoId, model: state.model, priceVersion: state.priceVersion }, 'a completed video job is released unbilled: its price is unknown');
    if (price) {
      const usage = createUsage({ videoSeconds: state.deliveredSeconds ?? state.seconds });
      const { cost, costByKind } = chargeOf(price.pricing, usage);
      charged = cost;
      await this.deps.accounts.execute(orgId, { type: 'SettleReservation', reservationId: videoId, cost, costByKind, usage }, CAUSED_BY);
    } else {
      await this.deps.accounts.execute(orgId, { type: 'ReleaseReservation', reservationId: videoId, reason: 'video_failed' }, CAUSED_BY);
    }
    await this.deps.jobs.execute(videoId, { type: 'RecordBilling', charged }, CAUSED_BY);
  }

  /** The price the job's seconds were reserved at (the one in force now for a job queued before prices were versioned). */
  private priceOf(state: VideoJobState): AppliedPrice | undefined {
    if (state.priceVersion === null) return appliedPrice(this.deps.prices, state.model, undefined, this.deps.clock.now());
    return recordedPrice(this.deps.prices, state.model, state.priceVersion, null);
  }
}
