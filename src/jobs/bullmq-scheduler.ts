import { Queue, Worker } from 'bullmq';
import type { Logger } from '../logger.js';
import type { JobScheduler } from './job-scheduler.js';

/**
 * Background jobs on Redis with BullMQ: one queue, one job scheduler per job name (`upsertJobScheduler`
 * is idempotent, so every instance may declare it), and a worker on every instance: each tick is taken by
 * one of them. Workers need their own connections with `maxRetriesPerRequest: null` (BullMQ's rule).
 */
const CLOSE_TIMEOUT_MS = 3_000;

export class BullMqScheduler implements JobScheduler {
  private readonly queue: Queue;
  private readonly handlers = new Map<string, () => Promise<void>>();
  private worker: Worker | undefined;

  constructor(
    private readonly redisUrl: string,
    private readonly prefix: string,
    private readonly logger?: Logger,
  ) {
    this.queue = new Queue('gateway-jobs', { connection: this.connection(), prefix: `${prefix}bull` });
    this.queue.on('error', (error) => this.logger?.warn({ err: error }, 'job queue error'));
  }

  async every(name: string, intervalMs: number, work: () => Promise<void>): Promise<void> {
    this.handlers.set(name, work);
    this.worker ??= this.startWorker();
    await this.queue.upsertJobScheduler(name, { every: intervalMs }, { name, opts: { removeOnComplete: true, removeOnFail: 100 } });
  }

  /**
   * Waits for a running job, but not for ever: with Redis gone, BullMQ's close would wait on a
   * connection that keeps reconnecting, and shutdown must not hang on it.
   */
  async close(): Promise<void> {
    const bounded = (closing: Promise<unknown>) =>
      Promise.race([closing.catch(() => {}), new Promise((resolve) => setTimeout(resolve, CLOSE_TIMEOUT_MS).unref())]);
    if (this.worker) await bounded(this.worker.close());
    await bounded(this.queue.close());
    await Promise.all([this.worker?.disconnect(), this.queue.disconnect()].map((closing) => closing?.catch(() => {})));
  }

  private startWorker(): Worker {
    const worker = new Worker(
      'gateway-jobs',
      async (job) => {
        const work = this.handlers.get(job.name);
        if (work) await work();
      },
      { connection: this.connection(), prefix: `${this.prefix}bull`, concurrency: 1 },
    );
    worker.on('failed', (job, error) => this.logger?.error({ err: error, job: job?.name }, 'background job failed'));
    worker.on('error', (error) => this.logger?.warn({ err: error }, 'job worker error'));
    return worker;
  }

  private connection() {
    const url = new URL(this.redisUrl);
    return {
      host: url.hostname,
      port: Number(url.port || 6379),
      ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
      ...(url.pathname.length > 1 ? { db: Number(url.pathname.slice(1)) } : {}),
      ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
      maxRetriesPerRequest: null,
    };
  }
}
