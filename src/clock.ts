/** Time comes from here, never from `new Date()` inside domain code, so tests and replays control it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
