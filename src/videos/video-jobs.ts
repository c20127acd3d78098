import type { AccessDirectory } from '../access/access-directory.js';
import type { PriceList } from '../prices/price-book.js';
import type { CatalogStore } from '../catalog/catalog-store.js';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { EventStore } from '../eventstore/event-store.js';
import type { Accounts } from '../ledger/accounts.js';
import type { Logger } from '../logger.js';
import type { ProviderClient, ProviderDownload } from '../providers/provider-client.js';
import type { VideoJobQueued } from './video-events.js';
import { VideoJobStore } from './video-job-store.js';
import { VideoProvider } from './video-provider.js';
import { viewOfVideoJob, type VideoJobView } from './video-record.js';
import { VideoWorker, type ListPendingVideoJobs } from './video-worker.js';

/** The video read model's answers (projections/video-jobs-queries.ts), reached through this port. */
export interface VideoJobReads {
  byId(videoId: string): Promise<VideoJobView | undefined>;
  /** Newest first; `after` is the id of the last job of the previous page. */
  list(orgId: string, limit: number, after: string | undefined): Promise<VideoJobView[]>;
}

/**
 * What the video routes and the `POST /v1/videos` endpoint ask of video jobs: queue one (and have this
 * instance's worker take it at once), read one or a page of them, cancel one, download its file. A job of
 * another organization is `404 video_not_found`, never a hint that it exists (spec 3 rule 4).
 */
export class VideoJobs {
  /** Video jobs on the gateway's stores, provider client and catalog, with this instance's worker. */
  static create(deps: {
    readonly store: EventStore;
    readonly accounts: Accounts;
    readonly directory: AccessDirectory;
    readonly catalog: CatalogStore;
    readonly prices: PriceList;
    readonly providers: ProviderClient;
    readonly clock: Clock;
    readonly logger: Logger;
    readonly reads: VideoJobReads & { readonly pending: ListPendingVideoJobs };
    /** Whether this instance submits the jobs it queues; without, they wait for the tick of an instance that does. */
    readonly submits: boolean;
  }): VideoJobs {
    const jobs = new VideoJobStore(deps.store, deps.clock);
    const provider = new VideoProvider(deps.providers);
    const worker = new VideoWorker({ ...deps, jobs, provider, listPending: deps.reads.pending });
    return new VideoJobs({ jobs, reads: deps.reads, worker, provider, catalog: deps.catalog, submits: deps.submits });
  }

  constructor(
    private readonly deps: {
      readonly jobs: VideoJobStore;
      readonly reads: VideoJobReads;
      readonly worker: VideoWorker;
      readonly submits: boolean;
      readonly provider: VideoProvider;
      readonly catalog: CatalogStore;
    },
  ) {}

  /** One pass of this instance's worker over the pending jobs (the job scheduler's tick, on one instance at a time). */
  tick(): Promise<void> {
    return this.deps.worker.tick();
  }

  async queue(job: VideoJobQueued['data'], causedBy: string): Promise<VideoJobView> {
    const { state } = await this.deps.jobs.execute(job.videoId, { type: 'QueueVideoJob', job }, causedBy);
    // submitted now rather than at the next tick; the tick is there for the jobs of dead instances
    if (this.deps.submits) setImmediate((worker: VideoWorker) => void worker.advance(job.videoId), this.deps.worker);
    return viewOfVideoJob(state);
  }

  /**
   * The job from the read model; one queued a moment ago, which the read model may not have yet, from its
   * own stream (so a client that reads its job right after creating it finds it).
   */
  async find(orgId: string, videoId: string): Promise<VideoJobView> {
    let view = await this.deps.reads.byId(videoId);
    if (!view) {
      const { state } = await this.deps.jobs.load(videoId);
      if (state.exists) view = viewOfVideoJob(state);
    }
    if (!view || view.orgId !== orgId) throw new GatewayError('video_not_found', `no video job ${videoId}`);
    return view;
  }

  list(orgId: string, limit: number, after: string | undefined): Promise<VideoJobView[]> {
    return this.deps.reads.list(orgId, limit, after);
  }

  /** Spec 3: a job not yet passed to the provider fails as `cancelled`, its reservation released at once. */
  async cancel(orgId: string, videoId: string, causedBy: string): Promise<VideoJobView> {
    await this.find(orgId, videoId);
    const { state } = await this.deps.jobs.execute(videoId, { type: 'CancelVideoJob' }, causedBy);
    await this.deps.worker.advance(videoId); // bills it: the reservation is released at once
    return viewOfVideoJob(state);
  }

  /** The file of a completed job, streamed from the provider (`409`-free: anything unfinished is `video_not_ready`). */
  async content(orgId: string, videoId: string, range: string | undefined, signal: AbortSignal): Promise<ProviderDownload> {
    const view = await this.find(orgId, videoId);
    if (view.status !== 'completed' || !view.providerVideoId) throw new GatewayError('video_not_ready', `the video job ${videoId} is ${view.status}`);
    const model = this.deps.catalog.findModel(view.model);
    if (!model) throw new GatewayError('video_not_found', `the model of video job ${videoId} is no longer served`);
    return this.deps.provider.download(model, view.providerVideoId, range, signal);
  }
}
