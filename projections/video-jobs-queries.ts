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
    submitted_at: Date | null;
    finished_at: Date | null;
    error_code: string | null;
    error_message: string | null;
    charged: string | null;
  };
};

/** How many jobs are in each status, and how many finished ones wait to be billed (the metrics). */
export async function videoJobCounts(readModels: Kysely<object>): Promise<{ byStatus: Record<VideoStatus, number>; unbilled: number }> {
  const db = readModels.withTables<VideoJobsTable>();
  const rows = await db
    .selectFrom('video_jobs')
    .select((eb) => ['status', eb.fn.countAll<string>().as('jobs'), eb.fn.count<string>(eb.case().when('charged', 'is', null).then(1).end()).as('unbilled')])
    .groupBy('status')
    .execute();
  const byStatus: Record<VideoStatus, number> = { queued: 0, in_progress: 0, completed: 0, failed: 0 };
  let unbilled = 0;
  for (const row of rows) {
    byStatus[row.status as VideoStatus] = Number(row.jobs);
    if (row.status === 'completed' || row.status === 'failed') unbilled += Number(row.unbilled);
  }
  return { byStatus, unbilled };
}

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
      const rows = await db
        .selectFrom('video_jobs')
        .select(['video_id', 'key_id', 'status', 'created_at', 'submitted_at'])
        .where('charged', 'is', null)
        .orderBy('created_at')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ videoId: row.video_id, keyId: row.key_id, status: row.status as VideoStatus, since: new Date(row.submitted_at ?? row.created_at) }));
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
