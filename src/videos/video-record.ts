import type { VideoJobState, VideoStatus } from './video-decider.js';
import type { VideoFailure } from './video-events.js';

/**
 * A video job as the client reads it, wherever it comes from: the job's own stream (just after it was
 * queued) or the video read model (every other read).
 */
export interface VideoJobView {
  readonly videoId: string;
  readonly orgId: string;
  readonly keyId: string;
  readonly model: string;
  readonly status: VideoStatus;
  readonly progress: number;
  readonly prompt: string;
  readonly seconds: number;
  readonly size: string;
  readonly createdAt: string;
  readonly finishedAt: string | null;
  readonly error: { readonly code: VideoFailure; readonly message: string } | null;
  /** Nanodollars charged once billed (0 for a failed job); null before. */
  readonly charged: bigint | null;
  /** The provider's id of the job, once it was submitted. */
  readonly providerVideoId: string | null;
}

export function viewOfVideoJob(state: VideoJobState): VideoJobView {
  return {
    videoId: state.videoId,
    orgId: state.orgId,
    keyId: state.keyId,
    model: state.model,
    status: state.status,
    progress: state.progress,
    prompt: state.prompt,
    seconds: state.seconds,
    size: state.size,
    createdAt: state.queuedAt,
    finishedAt: state.finishedAt ?? null,
    error: state.error ?? null,
    charged: state.charged ?? null,
    providerVideoId: state.providerVideoId ?? null,
  };
}

/**
 * The job in the OpenAI videos API's shape (`VideoResource`, wire-formats.md 5), which the `openai`
 * package reads: `seconds` as a string, times in Unix seconds, `error` as `{code, message}` with the
 * gateway's reason as the code (`timeout`, `provider_error`, `cancelled`, `key_revoked`; spec 2.4).
 */
export function renderVideoJob(view: VideoJobView): Record<string, string | number | null | { code: string; message: string }> {
  const unix = (iso: string) => Math.floor(Date.parse(iso) / 1000);
  return {
    id: view.videoId,
    object: 'video',
    model: view.model,
    status: view.status,
    progress: view.progress,
    created_at: unix(view.createdAt),
    completed_at: view.status === 'completed' && view.finishedAt ? unix(view.finishedAt) : null,
    expires_at: null,
    prompt: view.prompt,
    size: view.size,
    seconds: String(view.seconds),
    remixed_from_video_id: null,
    error: view.error ? { code: view.error.code, message: view.error.message } : null,
  };
}
