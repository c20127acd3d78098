import type { Logger } from '../logger.js';
import type { JobScheduler } from './job-scheduler.js';

/** The embedded mode's scheduler: a timer per job; a run never overlaps the previous one. */
export class InProcessScheduler implements JobScheduler {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly logger?: Logger) {}

  async every(name: string, intervalMs: number, work: () => Promise<void>): Promise<void> {
    const tick = () => {
      if (this.closed) return;
      const run = work()
        .catch((error) => this.logger?.error({ err: error, job: name }, 'background job failed'))
        .finally(() => {
          this.running.delete(run);
          schedule();
        });
      this.running.add(run);
    };
    const schedule = () => {
      if (this.closed) return;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        tick();
      }, intervalMs);
      timer.unref();
      this.timers.add(timer);
    };
    schedule();
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all(this.running);
  }
}
