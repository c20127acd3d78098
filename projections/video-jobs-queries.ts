import type { Kysely } from 'kysely';
import type { VideoStatus } from '../src/videos/video-decider.js';
import type { VideoFailure } from '../src/videos/video-events.js';
import type { VideoJobReads } from '../src/videos/video-jobs.js';
import type { VideoJobView } from '../src/videos/video-record.js';
import type { ListPendingVideoJobs } from '../src/videos/video-worker.js';

/** The columns of the video read model (video-projection.ts) the queries read. */
type VideoJobsTable = {
  video_jobs: {
    video_id: string;
    org_id: string;
    key_id: string;
    model: string;
    status: string;
    progress: number;
    prompt: string;
    seconds: string;
    size: string;
    provider_video_id: string | null;
    created_at: Date;
    finished_at: Date | null;
    error_code: string | null;
    error_message: string | null;
    charged: string | null;
  };
};

/** The video read model's answers for the video routes and the worker. */
export function videoJobReadsFrom(readModels: Kysely<object>): VideoJobReads & { pending: ListPendingVideoJobs } {
  const db = readModels.withTables<VideoJobsTable>();
  const jobs = () => db.selectFrom('video_jobs').selectAll();
  return {
    async byId(videoId) {
      const row = await jobs().where('video_id', '=', videoId).executeTakeFirst();
      return row && viewOf(row);
    },
    async list(orgId, limit, after) {
      let query = jobs().where('org_id', '=', orgId);
      if (after !== undefined) {
        // keyset paging on (created_at, video_id), newest first: the page after the job named
        const last = await db.selectFrom('video_jobs').select(['created_at', 'video_id']).where('video_id', '=', after).where('org_id', '=', orgId).executeTakeFirst();
        if (!last) return [];
        query = query.where((eb) => eb.or([eb('created_at', '<', last.created_at), eb.and([eb('created_at', '=', last.created_at), eb('video_id', '<', last.video_id)])]));
      }
      const rows = await query.orderBy('created_at', 'desc').orderBy('video_id', 'desc').limit(limit).execute();
      return rows.map(viewOf);
    },
    async pending(limit) {
      const rows = await db.selectFrom('video_jobs').select('video_id').where('charged', 'is', null).orderBy('created_at').limit(limit).execute();
      return rows.map((row) => row.video_id);
    },
  };
}

function viewOf(row: VideoJobsTable['video_jobs']): VideoJobView {
  return {
    videoId: row.video_id,
    orgId: row.org_id,
    keyId: row.key_id,
    model: row.model,
    status: row.status as VideoStatus,
    progress: row.progress,
    prompt: row.prompt,
    seconds: Number(row.seconds),
    size: row.size,
    createdAt: new Date(row.created_at).toISOString(),
    finishedAt: row.finished_at === null ? null : new Date(row.finished_at).toISOString(),
    error: row.error_code === null ? null : { code: row.error_code as VideoFailure, message: row.error_message ?? '' },
    charged: row.charged === null ? null : BigInt(row.charged),
    providerVideoId: row.provider_video_id,
  };
}
