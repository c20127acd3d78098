import { z } from 'zod';
import { defineEvent, EventCatalogue } from '../eventstore/event-catalogue.js';
import { nanodollarsText } from '../eventstore/event-data.js';
import type { EventToAppend, RecordedEvent } from '../eventstore/event-store.js';
import { VIDEO_FAILURES, type VideoEvent } from './video-events.js';

/** The stored shapes of the video job events (version 1 of each); see video-events.ts for their meaning. */
export const videoEventDefinitions = [
  defineEvent({
    type: 'VideoJobQueued',
    schemaVersion: 1,
    schema: z.strictObject({
      videoId: z.string().regex(/^video_[0-9A-Za-z]+$/),
      orgId: z.string().min(1),
      keyId: z.string().min(1),
      model: z.string().min(1),
      prompt: z.string(),
      seconds: z.number().positive(),
      size: z.string(),
      aspectRatio: z.string().nullable(),
      priceVersion: z.number().int().positive().nullable().default(null),
    }),
  }),
  defineEvent({ type: 'VideoJobSubmissionStarted', schemaVersion: 1, schema: z.strictObject({ attempt: z.number().int().positive() }) }),
  defineEvent({ type: 'VideoJobSubmitted', schemaVersion: 1, schema: z.strictObject({ providerVideoId: z.string().min(1) }) }),
  defineEvent({ type: 'VideoJobProgressed', schemaVersion: 1, schema: z.strictObject({ progress: z.number().int().min(0).max(100) }) }),
  defineEvent({ type: 'VideoJobCompleted', schemaVersion: 1, schema: z.strictObject({ seconds: z.number().nonnegative() }) }),
  defineEvent({ type: 'VideoJobFailed', schemaVersion: 1, schema: z.strictObject({ error: z.enum(VIDEO_FAILURES), message: z.string() }) }),
  defineEvent({ type: 'VideoJobBilled', schemaVersion: 1, schema: z.strictObject({ charged: nanodollarsText }) }),
] as const;

export const videoEventCatalogue = new EventCatalogue(videoEventDefinitions);

export function decodeVideoEvent(recorded: RecordedEvent): VideoEvent {
  const event = videoEventCatalogue.decode(recorded);
  return { type: event.type, data: event.data } as VideoEvent;
}

export function videoEventToAppend(event: VideoEvent, envelope: { id: string; occurredAt: string; causedBy: string }): EventToAppend {
  return videoEventCatalogue.create(event.type, { ...envelope, data: event.data });
}
