import { GatewayError } from '../errors/gateway-error.js';
import type { VideoEvent, VideoFailure, VideoJobQueued } from './video-events.js';

/**
 * The video job decider: pure `decideVideoJob(state, command, now) → events | rejection` over the
 * `video-<id>` stream, appended with the expected revision, so that two workers (or a retried delivery)
 * never decide one transition twice. Time comes from the caller's clock.
 */
export type VideoStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

export interface VideoJobState extends Omit<VideoJobQueued['data'], 'videoId'> {
  readonly exists: boolean;
  readonly videoId: string;
  readonly status: VideoStatus;
  /** Approximate percentage, as the provider last reported it. */
  readonly progress: number;
  readonly queuedAt: string;
  /** The last submission a worker started, if any (attempt 1, 2 …). */
  readonly submission: { readonly attempt: number; readonly startedAt: string } | undefined;
  readonly providerVideoId: string | undefined;
  readonly submittedAt: string | undefined;
  readonly finishedAt: string | undefined;
  /** The seconds of video delivered (completed jobs). */
  readonly deliveredSeconds: number | undefined;
  readonly error: { readonly code: VideoFailure; readonly message: string } | undefined;
  /** Nanodollars charged once the reservation was closed (0 for a failed job); undefined until then. */
  readonly charged: bigint | undefined;
}

export const initialVideoJobState: VideoJobState = {
  exists: false,
  videoId: '',
  orgId: '',
  keyId: '',
  model: '',
  prompt: '',
  seconds: 0,
  size: '',
  aspectRatio: null,
  priceVersion: null,
  status: 'queued',
  progress: 0,
  queuedAt: '',
  submission: undefined,
  providerVideoId: undefined,
  submittedAt: undefined,
  finishedAt: undefined,
  deliveredSeconds: undefined,
  error: undefined,
  charged: undefined,
};


export type VideoJobCommand =
  | { readonly type: 'QueueVideoJob'; readonly job: VideoJobQueued['data'] }
  /**
   * `leaseMs`: how long a started submission stays in the hands of the worker that started it (its call to
   * the provider cannot last longer). A worker that finds an older one without its `VideoJobSubmitted`
   * takes the submitting worker for dead and submits again, with the same idempotency key.
   */
  | { readonly type: 'StartSubmission'; readonly leaseMs: number }
  | { readonly type: 'RecordSubmission'; readonly providerVideoId: string }
  | { readonly type: 'RecordProgress'; readonly progress: number }
  | { readonly type: 'CompleteVideoJob'; readonly seconds: number }
  | { readonly type: 'FailVideoJob'; readonly error: VideoFailure; readonly message: string }
  | { readonly type: 'CancelVideoJob' }
  | { readonly type: 'RecordBilling'; readonly charged: bigint };

export type VideoJobDecision = { readonly events: VideoEvent[] } | { readonly rejection: GatewayError };

export const isFinished = (state: VideoJobState) => state.status === 'completed' || state.status === 'failed';
/** Whether the worker has something left to do: a job not finished, or finished with its reservation not yet closed. */
export const isPending = (state: VideoJobState) => state.exists && state.charged === undefined;

export function decideVideoJob(state: VideoJobState, command: VideoJobCommand, now: Date): VideoJobDecision {
  switch (command.type) {
    case 'QueueVideoJob':
      return state.exists ? { events: [] } : { events: [{ type: 'VideoJobQueued', data: command.job }] };
    case 'StartSubmission': {
      if (!state.exists || state.status !== 'queued') return { events: [] };
      const started = state.submission;
      if (started && now.getTime() - Date.parse(started.startedAt) < command.leaseMs) {
        return { rejection: new GatewayError('service_unavailable', 'another worker is submitting this video job', { retryAfterSeconds: 1 }) };
      }
      return { events: [{ type: 'VideoJobSubmissionStarted', data: { attempt: (started?.attempt ?? 0) + 1 } }] };
    }
    case 'RecordSubmission':
      // a submission recorded twice (a retried worker) keeps the first
      if (state.status !== 'queued' || state.submission === undefined) return { events: [] };
      return { events: [{ type: 'VideoJobSubmitted', data: { providerVideoId: command.providerVideoId } }] };
    case 'RecordProgress': {
      const progress = Math.min(100, Math.max(0, Math.floor(command.progress)));
      if (state.status !== 'in_progress' || progress <= state.progress) return { events: [] };
      return { events: [{ type: 'VideoJobProgressed', data: { progress } }] };
    }
    case 'CompleteVideoJob':
      if (state.status !== 'in_progress') return { events: [] };
      return { events: [{ type: 'VideoJobCompleted', data: { seconds: command.seconds } }] };
    case 'FailVideoJob':
      if (!state.exists || isFinished(state)) return { events: [] };
      return { events: [{ type: 'VideoJobFailed', data: { error: command.error, message: command.message } }] };
    case 'CancelVideoJob':
      // Spec 3: only a job not yet passed to the provider can be cancelled; a job that failed before it was
      // (cancelled already, say) has nothing left to cancel.
      if (!state.exists) return { rejection: new GatewayError('video_not_found') };
      if (state.status === 'failed' && state.submission === undefined) return { events: [] };
      if (state.status !== 'queued' || state.submission !== undefined) return { rejection: new GatewayError('video_cancel_unsupported') };
      return { events: [{ type: 'VideoJobFailed', data: { error: 'cancelled', message: 'the job was cancelled before it was passed to the provider' } }] };
    case 'RecordBilling':
      if (!isFinished(state) || state.charged !== undefined) return { events: [] };
      return { events: [{ type: 'VideoJobBilled', data: { charged: String(command.charged) } }] };
  }
}

export function evolveVideoJob(state: VideoJobState, event: VideoEvent, occurredAt: string): VideoJobState {
  switch (event.type) {
    case 'VideoJobQueued':
      return { ...state, ...event.data, exists: true, status: 'queued', queuedAt: occurredAt };
    case 'VideoJobSubmissionStarted':
      return { ...state, submission: { attempt: event.data.attempt, startedAt: occurredAt } };
    case 'VideoJobSubmitted':
      return { ...state, status: 'in_progress', providerVideoId: event.data.providerVideoId, submittedAt: occurredAt };
    case 'VideoJobProgressed':
      return { ...state, progress: event.data.progress };
    case 'VideoJobCompleted':
      return { ...state, status: 'completed', progress: 100, deliveredSeconds: event.data.seconds, finishedAt: occurredAt };
    case 'VideoJobFailed':
      return { ...state, status: 'failed', error: { code: event.data.error, message: event.data.message }, finishedAt: occurredAt };
    case 'VideoJobBilled':
      return { ...state, charged: BigInt(event.data.charged) };
  }
}
