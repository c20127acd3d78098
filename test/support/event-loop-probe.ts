import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Loaded into a gateway child process (`--import`) by tests that watch it from outside: every 200 ms it
 * sends the test, over the IPC channel, the longest event-loop delay since the last report and the
 * process's CPU time so far (so a test can show the gateway stayed responsive and did not spin), and it
 * answers a `heap` message with the heap used after a full garbage collection (the child runs with
 * --expose-gc), so a test can show memory does not grow with what passes through.
 */
export interface HeapReport {
  readonly type: 'heap';
  readonly heapUsed: number;
  /** Memory of Buffers and other ArrayBuffers, outside the JS heap (an upload held in memory shows here). */
  readonly arrayBuffers: number;
}

export interface EventLoopReport {
  readonly type: 'event-loop';
  /** Longest delay of the event loop in the last interval, in milliseconds. */
  readonly maxDelayMs: number;
  /** CPU time (user + system) of the process since it started, in microseconds. */
  readonly cpuMicros: number;
  /** Wall-clock time of the report (Date.now()). */
  readonly at: number;
}

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
if (process.send) {
  process.channel?.unref(); // the probe must never be what keeps the gateway alive
  setInterval(() => {
    const cpu = process.cpuUsage();
    const report: EventLoopReport = { type: 'event-loop', maxDelayMs: histogram.max / 1e6, cpuMicros: cpu.user + cpu.system, at: Date.now() };
    histogram.reset();
    process.send?.(report);
  }, 200).unref();
}

process.on('message', (message: { type?: string }) => {
  if (message?.type !== 'heap') return;
  (globalThis as { gc?: () => void }).gc?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  const report: HeapReport = { type: 'heap', heapUsed, arrayBuffers };
  process.send?.(report);
});
