import type { EventStore, GlobalPosition } from '../src/eventstore/event-store.js';

/** How far a projection is behind the end of the log. */
export interface ProjectionLag {
  /** Events after its checkpoint; counted up to LAG_COUNT_LIMIT (then `eventsBehindCapped`). */
  readonly eventsBehind: number;
  readonly eventsBehindCapped: boolean;
  /** Age of the oldest event it has not processed yet; 0 when caught up. */
  readonly msBehind: number;
}

export const LAG_COUNT_LIMIT = 100_000;

export async function measureLag(store: EventStore, position: string | null, now: Date = new Date()): Promise<ProjectionLag> {
  const sample = await store.eventsAfter((position as GlobalPosition | null) ?? 'start', LAG_COUNT_LIMIT);
  return {
    eventsBehind: sample.events,
    eventsBehindCapped: sample.events >= LAG_COUNT_LIMIT,
    msBehind: sample.oldestRecordedAt ? Math.max(0, now.getTime() - sample.oldestRecordedAt.getTime()) : 0,
  };
}
