import { createUsage } from '../../billing/usage.js';
import type { CatalogModel } from '../../catalog/catalog.js';
import { promptTokensBound } from '../../catalog/reserve-estimate.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { newId } from '../../ids/random-id.js';
import type { VideoJobs } from '../../videos/video-jobs.js';
import { renderVideoJob } from '../../videos/video-record.js';
import { VIDEO_JOB_TIMEOUT_MS } from '../../videos/video-worker.js';
import { DEFAULT_BODY_LIMIT } from '../body-limits.js';
import type { HandingOffEndpointSpec, RequestBodies } from '../endpoint-spec.js';
import { fieldValue } from '../multipart/multipart-upload.js';

/**
 * `POST /v1/videos` (spec 4.3 rule 5, wire-formats.md 5): starts an asynchronous video job on a video
 * model. The body is JSON or a multipart form; `seconds`, `size` and `aspect_ratio` must be in the model's
 * lists (`GET /v1/models`, its `video` entry), the first of each when left out; an `input_reference` is not
 * supported. The reserve is the seconds at the model's price; the request answers at once with the job,
 * `queued`, and hands its reservation to the job, which is charged for the seconds delivered or released
 * when it fails (src/videos).
 */
export interface VideoRequest {
  readonly model: string;
  readonly prompt: string;
  /** As asked; the model's first duration when undefined. */
  readonly seconds: number | undefined;
  readonly size: string | undefined;
  readonly aspectRatio: string | undefined;
}

/** A queued job may wait for a worker up to its hour, and then run up to its hour with the provider (spec 8). */
const RESERVATION_LIFETIME_MS = 2 * VIDEO_JOB_TIMEOUT_MS + 10 * 60_000;

export function videosEndpoint(videoJobs: VideoJobs): HandingOffEndpointSpec<VideoRequest, 'form'> {
  return {
    name: 'videos',
    routes: ['/v1/videos'],
    errorStyle: 'openai',
    bodyKind: 'form',
    bodyLimit: DEFAULT_BODY_LIMIT,
    categories: ['video'],
    piiMasking: 'unsupported',
    settles: 'by_job',
    newRequestId: () => newId('video'),
    reservationLifetimeMs: RESERVATION_LIFETIME_MS,
    parse: parseVideoRequest,
    fitModel: (request, model) => void videoSettings(request, model),
    estimate: (request, model) => {
      // every second asked for, at the model's price; the key's tokens per minute count the prompt
      const worstCase = createUsage({ videoSeconds: videoSettings(request, model).seconds });
      return { worstCase, rateLimitTokens: promptTokensBound(request.prompt) };
    },
    handOff: async (exchange) => {
      const { request, model, requestId, caller, price } = exchange;
      const settings = videoSettings(request, model);
      const job = await videoJobs.queue(
        { videoId: requestId, orgId: caller.orgId, keyId: caller.keyId, model: model.id, prompt: request.prompt, ...settings, priceVersion: price.version },
        requestId,
      );
      return renderVideoJob(job);
    },
  };
}

function parseVideoRequest(body: RequestBodies['form']): VideoRequest {
  const read = body.kind === 'json' ? (name: string) => body.json[name] : (name: string) => fieldValue(body.upload, name);
  if (body.kind === 'multipart') {
    for (const field of body.upload.unreadFiles) {
      if (field === 'input_reference') throw unsupported('input_reference', 'an input_reference file is not supported');
      throw new GatewayError('invalid_multipart', `unexpected file in the field ${field}`, { param: field });
    }
  }
  const prompt = read('prompt');
  if (typeof prompt !== 'string' || prompt.trim() === '') throw new GatewayError('missing_prompt', undefined, { param: 'prompt' });
  const model = read('model');
  if (typeof model !== 'string' || model === '') throw new GatewayError('missing_model', undefined, { param: 'model' });
  if (read('input_reference') !== undefined) throw unsupported('input_reference', 'input_reference is not supported');
  return { model, prompt, seconds: secondsOf(read('seconds')), size: textOf(read('size'), 'size'), aspectRatio: textOf(read('aspect_ratio'), 'aspect_ratio') };
}

/** Seconds as a number or a numeric string (the `openai` package sends "4", "8", "12"). */
function secondsOf(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) throw new GatewayError('invalid_seconds', `seconds must be a number of seconds (got ${JSON.stringify(value)})`, { param: 'seconds' });
  return seconds;
}

function textOf(value: unknown, param: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new GatewayError('invalid_request', `${param} must be a string`, { param });
  return value;
}

/** The job's duration, size and aspect ratio: as asked, within the model's lists, or the model's first. */
function videoSettings(request: VideoRequest, model: CatalogModel): { seconds: number; size: string; aspectRatio: string | null } {
  const options = model.video;
  if (!options) throw new GatewayError('model_category_mismatch', `${model.id} has no video options`, { param: 'model' });
  const seconds = request.seconds ?? options.seconds[0]!;
  if (!options.seconds.includes(seconds)) throw unsupported('seconds', `seconds must be one of ${options.seconds.join(', ')} on ${model.id}`);
  const size = request.size ?? options.sizes[0]!;
  if (!options.sizes.includes(size)) throw unsupported('size', `size must be one of ${options.sizes.join(', ')} on ${model.id}`);
  const aspectRatio = request.aspectRatio ?? null;
  if (aspectRatio !== null && !options.aspectRatios.includes(aspectRatio)) {
    throw unsupported('aspect_ratio', options.aspectRatios.length > 0 ? `aspect_ratio must be one of ${options.aspectRatios.join(', ')} on ${model.id}` : `${model.id} takes no aspect_ratio`);
  }
  return { seconds, size, aspectRatio };
}

function unsupported(param: string, message: string): GatewayError {
  return new GatewayError('unsupported_video_parameter', message, { param });
}
