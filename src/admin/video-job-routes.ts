import { Router } from 'express';
import type { Kysely } from 'kysely';
import type { AccessCommands } from '../access/access-commands.js';
import type { PageRecord, VideoJobRecord } from '../admin-records.js';
import { formatUsd } from '../billing/money.js';
import type { VideoJobView } from '../videos/video-record.js';
import { videoJobReadsFrom } from '../../projections/video-jobs-queries.js';
import { DEFAULT_PAGE_SIZE, pageQuery } from './admin-list-routes.js';
import { parseBody } from './admin-schemas.js';

/**
 * `GET /admin/v1/organizations/{org}/videos?limit&after`: the organization's video jobs, newest first,
 * from the video read model, with what each was charged (the console's video jobs page).
 */
export function videoJobRoutes(deps: { readonly readModels: Kysely<object>; readonly commands: AccessCommands }): Router {
  const router = Router();
  const reads = videoJobReadsFrom(deps.readModels);
  router.get('/admin/v1/organizations/:org/videos', async (req, res) => {
    const input = parseBody(pageQuery, req.query);
    const orgId = (await deps.commands.loadOrganization(req.params.org)).orgId;
    const limit = input.limit ?? DEFAULT_PAGE_SIZE;
    const views = await reads.list(orgId, limit + 1, input.after);
    const shown = views.slice(0, limit).map(renderVideoJobRecord);
    const answer: PageRecord<VideoJobRecord> = { object: 'list', data: shown, first_id: shown[0]?.id ?? null, last_id: shown.at(-1)?.id ?? null, has_more: views.length > limit };
    res.json(answer);
  });
  return router;
}

function renderVideoJobRecord(view: VideoJobView): VideoJobRecord {
  return {
    id: view.videoId,
    object: 'video_job',
    organization_id: view.orgId,
    key_id: view.keyId,
    model: view.model,
    status: view.status,
    progress: view.progress,
    seconds: view.seconds,
    size: view.size,
    created_at: view.createdAt,
    finished_at: view.finishedAt,
    error: view.error,
    cost_usd: view.charged === null ? null : formatUsd(view.charged),
  };
}
