import { Queue, Worker } from 'bullmq';
import type { Logger } from '../logger.js';
import type { JobScheduler } from './job-scheduler.js';

/**
 * Background jobs on Redis with BullMQ: a queue per job (`gateway-<name>`) with its job scheduler
 * (`upsertJobScheduler` is idempotent, so every instance may declare it), and a worker for it on every
 * instance that runs that job: each tick is taken by one of them. A queue per job, so that an instance that
 * does not run a job (`VIDEO_WORKER=off`) never takes its ticks. Workers need their own connections with
 * `maxRetriesPerRequest: null` (BullMQ's rule).
 *
 * While Redis is down the worker waits: its commands queue in ioredis until the connection returns, and
 * then it picks up the ticks it missed. Nothing here blocks the gateway's start or its requests.
 */
const CLOSE_TIMEOUT_MS = 3_000;
/** Reconnect attempts back off to this; the first ones come within a few hundred milliseconds. */
const RECONNECT_MAX_DELAY_MS = 2_000;

export class BullMqScheduler implements JobScheduler {
  private readonly jobs: Array<{ readonly queue: Queue; readonly worker: Worker }> = [];

  constructor(
    private readonly redisUrl: string,
    private readonly prefix: string,
    private readonly logger?: Logger,
  ) {}

  /**
   * Declares the job and returns at once: with Redis down at start, the declaration waits in the
   * connection's queue and is sent when Redis answers, instead of holding up the gateway's start.
   */
  async every(name: string, intervalMs: number, work: () => Promise<void>): Promise<void> {
    const queue = new Queue(`gateway-${name}`, { connection: this.connection(), prefix: `${this.prefix}bull` });
    queue.on('error', (error) => this.logger?.warn({ err: error, job: name }, 'job queue error'));
    this.jobs.push({ queue, worker: this.startWorker(queue.name, work) });
    queue
      .upsertJobScheduler(name, { every: intervalMs }, { name, opts: { removeOnComplete: true, removeOnFail: 100 } })
      .catch((error) => this.logger?.error({ err: error, job: name }, 'could not declare a background job'));
  }

  /** For /readyz: whether the queues' connections are up. */
  async ready(): Promise<void> {
    for (const { queue } of this.jobs) {
      const client = await queue.client;
      if (client.status !== 'ready') throw new Error(`the job queue's Redis connection is ${client.status}`);
    }
  }

  /**
   * Waits for a running job, but not for ever: with Redis gone, BullMQ's close would wait on a
   * connection that keeps reconnecting (taskforcesh/bullmq#4656), and shutdown must not hang on it.
   */
  async close(): Promise<void> {
    const bounded = (closing: Promise<unknown>) =>
      Promise.race([closing.catch(() => {}), new Promise((resolve) => setTimeout(resolve, CLOSE_TIMEOUT_MS).unref())]);
    const reachable = await this.ready().then(
      () => true,
      () => false,
    );
    // Unreachable: there is no running job to wait for that could still report back; stop at once.
    await Promise.all(this.jobs.map(({ worker }) => bounded(worker.close(!reachable))));
    await Promise.all(this.jobs.map(({ queue }) => bounded(queue.close())));
    await Promise.all(this.jobs.flatMap(({ queue, worker }) => [worker.disconnect(), queue.disconnect()]).map((closing) => closing.catch(() => {})));
  }

  private startWorker(queueName: string, work: () => Promise<void>): Worker {
    const worker = new Worker(queueName, () => work(), { connection: this.connection(), prefix: `${this.prefix}bull`, concurrency: 1 });
    stopRetriesOnceClosing(worker);
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
      retryStrategy: (attempt: number) => Math.min(attempt * 200, RECONNECT_MAX_DELAY_MS),
    };
  }
}

class WorkerClosingError extends Error {
  override name = 'WorkerClosingError';
}

/**
 * BullMQ 5 retries a Redis call that failed for lack of a connection, pausing `runRetryDelay` between
 * tries, except once the worker is closing: then it retries with no pause at all. With Redis gone, the
 * closed connection rejects every try at once, so a worker closed in the middle of such a call turns into
 * a loop of promise rejections that never yields to the event loop: timers stop firing and the process
 * spins at full CPU (seen when a gateway stopped while Redis was down). Here a try that starts after
 * closing began fails with an error that is not a connection error, which BullMQ does not retry.
 * `retryIfFailed` is internal to BullMQ: if a release renames it, the guard is skipped, and the test that
 * stops a gateway while Redis is down (test/e2e/redis-outage.test.ts) shows whether it is still needed.
 */
export function stopRetriesOnceClosing(worker: Worker): void {
  type RetryIfFailed = (fn: () => Promise<unknown>, options: object) => Promise<unknown>;
  const internals = worker as unknown as { retryIfFailed?: RetryIfFailed };
  const original = internals.retryIfFailed;
  if (typeof original !== 'function') return;
  internals.retryIfFailed = (fn, options) =>
    original.call(
      worker,
      async () => {
        if (worker.closing) throw new WorkerClosingError('the job worker is closing');
        return fn();
      },
      options,
    );
}
