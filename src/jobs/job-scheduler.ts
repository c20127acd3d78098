/**
 * Repeating background work (reservation expiry; video polling later). With Redis it runs as a BullMQ
 * job scheduler, so across N gateway instances each tick runs once; in embedded mode an in-process timer.
 */
export interface JobScheduler {
  /** Runs `work` about every `intervalMs`; a run that throws is logged and the next tick still comes. */
  every(name: string, intervalMs: number, work: () => Promise<void>): Promise<void>;
  /** Resolves when jobs can be taken now; rejects saying why not (for /readyz). */
  ready(): Promise<void>;
  close(): Promise<void>;
}
