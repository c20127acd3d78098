import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../free-port.js';

/**
 * The benchmark's Redis. Without BENCH_REDIS_URL it starts a private `redis-server` (no persistence) when
 * one is installed, so that the CPU the gateway costs Redis can be read from that process alone; the
 * machine's shared Redis serves other work too. With BENCH_REDIS_URL, or without a redis-server binary,
 * it uses the given (or local) server and reports no Redis CPU.
 */
export interface BenchRedis {
  readonly url: string;
  /** The server process, when this run owns it. */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

export async function startBenchRedis(): Promise<BenchRedis> {
  const given = process.env.BENCH_REDIS_URL;
  const binary = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((path) => existsSync(path));
  if (given || !binary) return { url: given ?? 'redis://127.0.0.1:6379', pid: undefined, stop: async () => {} };
  const directory = mkdtempSync(join(tmpdir(), 'gw-bench-redis-'));
  const port = await freePort();
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', directory], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => {}); // refused until the server listens
    const ready = await redis.connect().then(() => redis.ping().then(() => true), () => false);
    redis.disconnect();
    if (ready) break;
    if (attempt > 50) throw new Error(`the private redis-server on port ${port} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    pid: child.pid,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
