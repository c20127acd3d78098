import { expect } from 'chai';
import { Worker } from 'bullmq';
import { stopRetriesOnceClosing } from '../../../src/jobs/bullmq-scheduler.js';
import { testRedisPrefix, testRedisUrl } from '../../support/databases.js';

/**
 * BullMQ retries a Redis call that failed for lack of a connection; once the worker is closing it does
 * so without any pause, which with Redis gone never yields to the event loop. The gateway's guard ends
 * those retries instead. This drives BullMQ's own retry loop on a real worker: without the guard (or if
 * BullMQ renames the method it wraps) the call is tried over and over, and the test sees it.
 */
describe('the BullMQ worker while it closes', () => {
  it('stops retrying a call that fails for lack of a connection, instead of retrying it without pause', async () => {
    const redis = new URL(testRedisUrl());
    const worker = new Worker('guard-test', async () => {}, {
      connection: { host: redis.hostname, port: Number(redis.port || 6379), maxRetriesPerRequest: null },
      prefix: testRedisPrefix('guard'),
      autorun: false,
    });
    worker.on('error', () => {});
    stopRetriesOnceClosing(worker);
    const closing = worker.close();
    let tries = 0;
    const lostConnection = async () => {
      tries++;
      // a way out for the unguarded loop, so that a regression fails this test instead of hanging it
      if (tries >= 1_000) throw new Error('still retrying after 1,000 tries');
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    };
    const internals = worker as unknown as { retryIfFailed(fn: () => Promise<unknown>, options: object): Promise<unknown> };
    await internals.retryIfFailed(lostConnection, { delayInMs: 15_000 }).catch(() => {});
    expect(tries, 'tries of the failing call after closing began').to.be.lessThan(2);
    await closing;
  });
});
