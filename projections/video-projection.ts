import { sql, type Transaction } from 'kysely';
import { videoEventDefinitions } from '../src/videos/video-event-catalogue.js';
import { VIDEO_STREAM_PREFIX } from '../src/videos/video-events.js';
import { defineProjection } from './projection.js';

/**
 * The video jobs read model, from the `video-…` streams: one row per job, as `GET /v1/videos/{id}` and the
 * list show it, what the worker still has to do (`charged` is null until the job is billed), and what the
 * console and the metrics count. Rebuilt from the log like the others.
 */
async function setup(trx: Transaction<object>): Promise<void> {
  await sql`create table video_jobs (
    video_id text primary key,
    org_id text not null,
    key_id text not null,
    model text not null,
    status text not null,
    progress integer not null,
    prompt text not null,
    seconds numeric not null,
    size text not null,
    aspect_ratio text,
    provider_video_id text,
    submission_attempts integer not null default 0,
    created_at timestamptz not null,
    submitted_at timestamptz,
    finished_at timestamptz,
    delivered_seconds numeric,
    error_code text,
    error_message text,
    charged numeric
  )`.execute(trx);
  await sql`create index video_jobs_by_org_newest on video_jobs (org_id, created_at desc, video_id desc)`.execute(trx);
  await sql`create index video_jobs_pending on video_jobs (created_at) where charged is null`.execute(trx);
}

export const videoProjection = defineProjection({
  name: 'videos',
  version: 1,
  handles: videoEventDefinitions,
  streams: [VIDEO_STREAM_PREFIX],
  tables: ['video_jobs'],
  setup,
  async apply(trx, event) {
    const at = event.metadata.occurredAt;
    const id = event.streamId.slice(VIDEO_STREAM_PREFIX.length);
    switch (event.type) {
      case 'VideoJobQueued': {
        const job = event.data;
        await sql`insert into video_jobs (video_id, org_id, key_id, model, status, progress, prompt, seconds, size, aspect_ratio, created_at)
          values (${job.videoId}, ${job.orgId}, ${job.keyId}, ${job.model}, 'queued', 0, ${job.prompt}, ${job.seconds}, ${job.size}, ${job.aspectRatio}, ${at})`.execute(trx);
        return;
      }
      case 'VideoJobSubmissionStarted':
        await sql`update video_jobs set submission_attempts = ${event.data.attempt} where video_id = ${id}`.execute(trx);
        return;
      case 'VideoJobSubmitted':
        await sql`update video_jobs set status = 'in_progress', provider_video_id = ${event.data.providerVideoId}, submitted_at = ${at} where video_id = ${id}`.execute(trx);
        return;
      case 'VideoJobProgressed':
        await sql`update video_jobs set progress = ${event.data.progress} where video_id = ${id}`.execute(trx);
        return;
      case 'VideoJobCompleted':
        await sql`update video_jobs set status = 'completed', progress = 100, delivered_seconds = ${event.data.seconds}, finished_at = ${at} where video_id = ${id}`.execute(trx);
        return;
      case 'VideoJobFailed':
        await sql`update video_jobs set status = 'failed', error_code = ${event.data.error}, error_message = ${event.data.message}, finished_at = ${at} where video_id = ${id}`.execute(trx);
        return;
      case 'VideoJobBilled':
        await sql`update video_jobs set charged = ${event.data.charged}::numeric where video_id = ${id}`.execute(trx);
        return;
    }
  },
});
