import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { WrongExpectedRevisionError, type EventStore, type ExpectedRevision } from '../eventstore/event-store.js';
import { decideVideoJob, evolveVideoJob, initialVideoJobState, type VideoJobCommand, type VideoJobState } from './video-decider.js';
import { decodeVideoEvent, videoEventToAppend } from './video-event-catalogue.js';
import type { VideoEvent } from './video-events.js';
import { videoStreamId } from './video-events.js';

/** What a command did to a job: its state after, and the events it appended (none when there was nothing to do). */
export interface VideoJobOutcome {
  readonly state: VideoJobState;
  readonly events: readonly VideoEvent[];
}

const MAX_ATTEMPTS = 5;

/**
 * Runs video job commands on their `video-<id>` streams: the stream read, the decider asked, the events
 * appended with the expected revision. A conflict (another worker, the DELETE route) reads the stream again
 * and decides again, so a transition is decided once whoever races for it. A refusal is thrown.
 */
export class VideoJobStore {
  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  async load(videoId: string): Promise<{ state: VideoJobState; revision: ExpectedRevision }> {
    const events = await this.store.readStream(videoStreamId(videoId));
    let state = initialVideoJobState;
    for (const event of events) state = evolveVideoJob(state, decodeVideoEvent(event), event.metadata.occurredAt);
    return { state, revision: events.length === 0 ? 'no_stream' : events[events.length - 1]!.revision };
  }

  async execute(videoId: string, command: VideoJobCommand, causedBy: string): Promise<VideoJobOutcome> {
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = await this.load(videoId);
      const now = this.clock.now();
      const decision = decideVideoJob(state, command, now);
      if ('rejection' in decision) throw decision.rejection;
      const { events } = decision;
      if (events.length === 0) return { state, events };
      const occurredAt = now.toISOString();
      try {
        await this.store.append(
          videoStreamId(videoId),
          events.map((event) => videoEventToAppend(event, { id: randomUUID(), occurredAt, causedBy })),
          { expectedRevision: revision },
        );
        return { state: events.reduce((folded, event) => evolveVideoJob(folded, event, occurredAt), state), events };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }
}
