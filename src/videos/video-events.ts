/**
 * Events of the `video-<videoId>` stream: every state of an asynchronous video job (spec 3). A job is
 * queued by `POST /v1/videos` (its reservation made in the same request), submitted to the provider by a
 * worker, and ends completed (its reservation settled for the seconds delivered) or failed (released:
 * nothing is charged), and then billed. The worker records its intent before it submits, so a restarted
 * worker knows a submission may already be with the provider.
 */
export type VideoFailure = 'timeout' | 'provider_error' | 'cancelled' | 'key_revoked';
export const VIDEO_FAILURES: readonly VideoFailure[] = ['timeout', 'provider_error', 'cancelled', 'key_revoked'];

export interface VideoJobQueued {
  type: 'VideoJobQueued';
  data: {
    videoId: string;
    orgId: string;
    keyId: string;
    /** The catalog model (`<provider>/<model>`). */
    model: string;
    /** What the provider is sent when the job is submitted (the worker may run after a restart). */
    prompt: string;
    seconds: number;
    size: string;
    aspectRatio: string | null;
    /** The model's price version its seconds were reserved at, which the job is billed at (src/prices). */
    priceVersion: number | null;
  };
}

/** A worker is about to submit the job (attempt 1, 2 …); the provider is sent the job's idempotency key. */
export interface VideoJobSubmissionStarted {
  type: 'VideoJobSubmissionStarted';
  data: { attempt: number };
}

export interface VideoJobSubmitted {
  type: 'VideoJobSubmitted';
  data: { providerVideoId: string };
}

/** The provider's progress went up (an approximate percentage). */
export interface VideoJobProgressed {
  type: 'VideoJobProgressed';
  data: { progress: number };
}

export interface VideoJobCompleted {
  type: 'VideoJobCompleted';
  /** The seconds of video delivered: what the job is charged for. */
  data: { seconds: number };
}

export interface VideoJobFailed {
  type: 'VideoJobFailed';
  data: { error: VideoFailure; message: string };
}

/**
 * The job's reservation was closed on its account after the job finished: settled for the seconds
 * delivered, or released (a failed job, charged 0). Recorded after the account's own event, so that a
 * worker that died between the two closes the reservation again (which changes nothing) and records this.
 */
export interface VideoJobBilled {
  type: 'VideoJobBilled';
  /** Nanodollars, as a decimal string. */
  data: { charged: string };
}

export type VideoEvent = VideoJobQueued | VideoJobSubmissionStarted | VideoJobSubmitted | VideoJobProgressed | VideoJobCompleted | VideoJobFailed | VideoJobBilled;

export const VIDEO_STREAM_PREFIX = 'video-';
export const videoStreamId = (videoId: string) => `${VIDEO_STREAM_PREFIX}${videoId}`;
