import { expect } from 'chai';
import { decideVideoJob, evolveVideoJob, initialVideoJobState, isPending, type VideoJobCommand, type VideoJobState } from '../../../src/videos/video-decider.js';
import type { VideoEvent } from '../../../src/videos/video-events.js';

const NOW = new Date('2026-11-26T12:00:00Z');
const LEASE_MS = 15_000;
const queued: VideoEvent = {
  type: 'VideoJobQueued',
  data: { videoId: 'video_a', orgId: 'org_a', keyId: 'key_a', model: 'openai/sora-2', prompt: 'a lighthouse', seconds: 4, size: '720x1280', aspectRatio: null, priceVersion: 1 },
};
const started = (attempt = 1): VideoEvent => ({ type: 'VideoJobSubmissionStarted', data: { attempt } });
const submitted: VideoEvent = { type: 'VideoJobSubmitted', data: { providerVideoId: 'video_up' } };
const completed: VideoEvent = { type: 'VideoJobCompleted', data: { seconds: 4 } };

/** given: events that already happened, each at `at` (default NOW). */
function given(...events: Array<VideoEvent | [VideoEvent, string]>): VideoJobState {
  return events.reduce<VideoJobState>((state, entry) => {
    const [event, at] = Array.isArray(entry) ? entry : [entry, NOW.toISOString()];
    return evolveVideoJob(state, event, at);
  }, initialVideoJobState);
}

function when(state: VideoJobState, command: VideoJobCommand, now = NOW) {
  const decision = decideVideoJob(state, command, now);
  return 'events' in decision ? { events: decision.events } : { refused: decision.rejection.code };
}

describe('video job decider', () => {
  it('queues a job once: the same job again decides nothing', () => {
    expect(when(initialVideoJobState, { type: 'QueueVideoJob', job: queued.data })).to.deep.equal({ events: [queued] });
    expect(when(given(queued), { type: 'QueueVideoJob', job: queued.data })).to.deep.equal({ events: [] });
  });

  it('records the intent to submit, and leaves a started submission to its worker until the lease has passed', () => {
    expect(when(given(queued), { type: 'StartSubmission', leaseMs: LEASE_MS })).to.deep.equal({ events: [started(1)] });
    const startedAt = new Date(NOW.getTime() - LEASE_MS + 1).toISOString();
    expect(when(given(queued, [started(1), startedAt]), { type: 'StartSubmission', leaseMs: LEASE_MS })).to.deep.equal({ refused: 'service_unavailable' });
    const expired = new Date(NOW.getTime() - LEASE_MS).toISOString();
    expect(when(given(queued, [started(1), expired]), { type: 'StartSubmission', leaseMs: LEASE_MS })).to.deep.equal({ events: [started(2)] });
    expect(when(given(queued, started(), submitted), { type: 'StartSubmission', leaseMs: LEASE_MS }), 'already with the provider').to.deep.equal({ events: [] });
  });

  it('records the provider job once, and only after an intent', () => {
    expect(when(given(queued), { type: 'RecordSubmission', providerVideoId: 'video_up' })).to.deep.equal({ events: [] });
    expect(when(given(queued, started()), { type: 'RecordSubmission', providerVideoId: 'video_up' })).to.deep.equal({ events: [submitted] });
    expect(when(given(queued, started(), submitted), { type: 'RecordSubmission', providerVideoId: 'video_other' })).to.deep.equal({ events: [] });
  });

  it('records progress only upwards, while the job runs', () => {
    const running = given(queued, started(), submitted, { type: 'VideoJobProgressed', data: { progress: 40 } });
    expect(when(running, { type: 'RecordProgress', progress: 55.7 })).to.deep.equal({ events: [{ type: 'VideoJobProgressed', data: { progress: 55 } }] });
    expect(when(running, { type: 'RecordProgress', progress: 40 })).to.deep.equal({ events: [] });
    expect(when(given(queued), { type: 'RecordProgress', progress: 10 })).to.deep.equal({ events: [] });
  });

  it('completes a running job with the seconds delivered, and never a queued or finished one', () => {
    expect(when(given(queued, started(), submitted), { type: 'CompleteVideoJob', seconds: 4 })).to.deep.equal({ events: [completed] });
    expect(when(given(queued), { type: 'CompleteVideoJob', seconds: 4 })).to.deep.equal({ events: [] });
    expect(when(given(queued, started(), submitted, completed), { type: 'CompleteVideoJob', seconds: 8 })).to.deep.equal({ events: [] });
  });

  it('fails an unfinished job once, whatever the reason; a finished one stays as it is', () => {
    const failure = { type: 'FailVideoJob', error: 'timeout', message: 'late' } as const;
    expect(when(given(queued, started(), submitted), failure)).to.deep.equal({ events: [{ type: 'VideoJobFailed', data: { error: 'timeout', message: 'late' } }] });
    expect(when(given(queued, started(), submitted, completed), failure)).to.deep.equal({ events: [] });
    expect(when(initialVideoJobState, failure)).to.deep.equal({ events: [] });
  });

  it('cancels a job not yet passed to the provider, refuses one that was, and answers a second cancel with nothing', () => {
    const cancel = { type: 'CancelVideoJob' } as const;
    const [cancelled] = (when(given(queued), cancel) as { events: VideoEvent[] }).events;
    expect(cancelled).to.deep.equal({ type: 'VideoJobFailed', data: { error: 'cancelled', message: 'the job was cancelled before it was passed to the provider' } });
    expect(when(given(queued, cancelled!), cancel)).to.deep.equal({ events: [] });
    expect(when(given(queued, started()), cancel), 'a submission started may already be with the provider').to.deep.equal({ refused: 'video_cancel_unsupported' });
    expect(when(given(queued, started(), submitted), cancel)).to.deep.equal({ refused: 'video_cancel_unsupported' });
    expect(when(given(queued, started(), submitted, completed), cancel)).to.deep.equal({ refused: 'video_cancel_unsupported' });
    expect(when(initialVideoJobState, cancel)).to.deep.equal({ refused: 'video_not_found' });
  });

  it('bills a finished job once; the job is pending until then', () => {
    const done = given(queued, started(), submitted, completed);
    expect(isPending(done)).to.equal(true);
    const billed: VideoEvent = { type: 'VideoJobBilled', data: { charged: '400000000' } };
    expect(when(done, { type: 'RecordBilling', charged: 400_000_000n })).to.deep.equal({ events: [billed] });
    expect(isPending(given(queued, started(), submitted, completed, billed))).to.equal(false);
    expect(when(given(queued, started(), submitted, completed, billed), { type: 'RecordBilling', charged: 1n })).to.deep.equal({ events: [] });
    expect(when(given(queued, started(), submitted), { type: 'RecordBilling', charged: 0n }), 'a running job is not billed').to.deep.equal({ events: [] });
  });

  it('folds the job: its status, times, provider id, delivered seconds and charge', () => {
    const state = given(
      [queued, '2026-11-26T11:00:00.000Z'],
      [started(), '2026-11-26T11:00:01.000Z'],
      [submitted, '2026-11-26T11:00:02.000Z'],
      [completed, '2026-11-26T11:05:00.000Z'],
      { type: 'VideoJobBilled', data: { charged: '400000000' } },
    );
    expect(state).to.deep.include({
      status: 'completed',
      progress: 100,
      queuedAt: '2026-11-26T11:00:00.000Z',
      submittedAt: '2026-11-26T11:00:02.000Z',
      finishedAt: '2026-11-26T11:05:00.000Z',
      providerVideoId: 'video_up',
      deliveredSeconds: 4,
      charged: 400_000_000n,
    });
  });
});
