import type { ServerResponse } from 'node:http';
import { isId } from '../ids/random-id.js';
import { pipeline } from 'node:stream/promises';
import { Router, type Request } from 'express';
import type { AccessDirectory } from '../access/access-directory.js';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors/gateway-error.js';
import { authenticate } from '../pipeline/authenticate.js';
import type { ProviderDownload } from '../providers/provider-client.js';
import type { VideoJobs } from '../videos/video-jobs.js';
import { renderVideoJob } from '../videos/video-record.js';
import { rangeSlice, requestedRange } from './byte-range.js';
import { sendJson } from './json-reply.js';
import { requestContext } from './request-context.js';

const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;

/**
 * The video job routes besides `POST /v1/videos` (which runs through the pipeline): a job's record, a page of
 * the organization's jobs (newest first, as the `openai` package's `videos.list` pages them), the file of a
 * completed job, and the cancellation of a queued one (spec 3). Any key of the job's organization may read
 * it; another organization's job is `404 video_not_found`, never a hint that it exists.
 */
export function videoRoutes(deps: { readonly videoJobs: VideoJobs; readonly directory: AccessDirectory; readonly clock: Clock }): Router {
  const router = Router();
  const orgOf = (req: Request) => authenticate(req.headers, deps.directory, deps.clock.now()).organization.orgId;
  // after the key is checked (401 first), an id that cannot be a job's is not found, as another organization's is
  const jobId = (req: Request) => {
    if (!isId('video', req.params.id)) throw new GatewayError('video_not_found');
    return req.params.id;
  };

  router.get('/v1/videos', async (req, res) => {
    const orgId = orgOf(req);
    const limit = pageSize(req.query.limit);
    const after = typeof req.query.after === 'string' && req.query.after !== '' ? req.query.after : undefined;
    if (after !== undefined && !isId('video', after)) throw new GatewayError('invalid_request', 'after must be the id of a video job (video_…)', { param: 'after' });
    if (req.query.order !== undefined && req.query.order !== 'desc') throw new GatewayError('invalid_request', 'order must be desc: jobs are listed newest first', { param: 'order' });
    // one more than the page, to know whether another page follows
    const views = await deps.videoJobs.list(orgId, limit + 1, after);
    const data = views.slice(0, limit).map(renderVideoJob);
    sendJson(res, 200, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: views.length > limit });
  });

  router.get('/v1/videos/:id', async (req, res) => {
    const orgId = orgOf(req);
    sendJson(res, 200, renderVideoJob(await deps.videoJobs.find(orgId, jobId(req))));
  });

  router.delete('/v1/videos/:id', async (req, res) => {
    const orgId = orgOf(req);
    const view = await deps.videoJobs.cancel(orgId, jobId(req), requestContext(res).requestId);
    // the `openai` package's `videos.delete` answer; the job stays readable, failed with `cancelled`
    sendJson(res, 200, { id: view.videoId, object: 'video.deleted', deleted: true });
  });

  router.get('/v1/videos/:id/content', async (req, res) => {
    const variant = req.query.variant;
    if (variant !== undefined && variant !== 'video') throw new GatewayError('invalid_request', 'only the video variant is served', { param: 'variant' });
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    const range = typeof req.headers.range === 'string' ? req.headers.range : undefined;
    const orgId = orgOf(req);
    const download = await deps.videoJobs.content(orgId, jobId(req), range, abort.signal);
    await sendVideo(res, download, range);
  });

  return router;
}

function pageSize(value: unknown): number {
  if (value === undefined) return DEFAULT_PAGE;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new GatewayError('invalid_request', `limit must be an integer from 1 to ${MAX_PAGE}`, { param: 'limit' });
  return limit;
}

/**
 * The provider's file as `video/mp4`, streamed (never held in memory), with the ranges video players ask
 * for: a provider's own `206` passes through; from a provider that sent the whole file, the gateway cuts
 * the range out itself (`206`, or `416` for a range past the end). A provider's error passes as it is.
 */
async function sendVideo(res: ServerResponse, download: ProviderDownload, range: string | undefined): Promise<void> {
  const { status, headers, body } = download;
  if (status >= 400) {
    res.statusCode = status;
    res.setHeader('Content-Type', headers.contentType ?? 'application/json');
    await pipeline(body, res);
    return;
  }
  res.setHeader('Content-Type', 'video/mp4');
  const size = headers.contentLength === undefined ? undefined : Number(headers.contentLength);
  if (status === 206 || size === undefined || !Number.isFinite(size)) {
    res.statusCode = status;
    if (headers.contentRange) res.setHeader('Content-Range', headers.contentRange);
    if (size !== undefined && Number.isFinite(size)) res.setHeader('Content-Length', size);
    await pipeline(body, res);
    return;
  }
  res.setHeader('Accept-Ranges', 'bytes');
  const wanted = requestedRange(range, size);
  if (wanted === 'unsatisfiable') {
    body.destroy();
    res.statusCode = 416;
    res.setHeader('Content-Range', `bytes */${size}`);
    res.end();
    return;
  }
  if (wanted === undefined) {
    res.statusCode = 200;
    res.setHeader('Content-Length', size);
    await pipeline(body, res);
    return;
  }
  res.statusCode = 206;
  res.setHeader('Content-Range', `bytes ${wanted.start}-${wanted.end}/${size}`);
  res.setHeader('Content-Length', wanted.end - wanted.start + 1);
  const slice = rangeSlice(wanted);
  // the range is through: the rest of the provider's body is not downloaded
  slice.once('end', () => body.destroy());
  await pipeline(body, slice, res).catch((error: unknown) => {
    if (!res.writableFinished) throw error;
  });
}
