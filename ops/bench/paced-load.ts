import { Pool } from 'undici';

/**
 * Requests at a fixed rate (not as fast as the target answers, as under autocannon's closed loop), so the
 * latency measured is what a request costs at a normal load rather than time spent queueing. Each request
 * is timed with a sub-millisecond clock from its start to the end of its answer, or, with `firstByte`, to the
 * first chunk of the answer's body (a stream's first event). Requests go out on a keep-alive pool, as a
 * client library's would.
 */
export interface PacedLoadOptions {
  readonly origin: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly ratePerSecond: number;
  readonly seconds: number;
  readonly firstByte?: boolean;
}

export interface PacedLoadResult {
  readonly requests: number;
  readonly errors: number;
  /** Milliseconds, with fractions. */
  readonly p50: number;
  readonly p99: number;
}

export async function pacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const pool = new Pool(options.origin, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });
  const latencies: number[] = [];
  let errors = 0;
  const inFlight = new Set<Promise<void>>();
  const one = async (): Promise<void> => {
    const started = performance.now();
    try {
      const response = await pool.request({ path: options.path, method: 'POST', headers: options.headers, body: options.body });
      let timed = false;
      for await (const _chunk of response.body) {
        if (options.firstByte && !timed) {
          latencies.push(performance.now() - started);
          timed = true;
        }
      }
      if (response.statusCode !== 200) errors++;
      else if (!timed) latencies.push(performance.now() - started);
    } catch {
      errors++;
    }
  };
  const begin = performance.now();
  let sent = 0;
  const total = Math.round(options.ratePerSecond * options.seconds);
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - begin) / 1000) * options.ratePerSecond) + 1);
    for (; sent < due; sent++) {
      const request = one();
      inFlight.add(request);
      void request.finally(() => inFlight.delete(request));
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (fraction: number) => latencies[Math.min(latencies.length - 1, Math.floor(fraction * latencies.length))] ?? Number.NaN;
  return { requests: total, errors, p50: at(0.5), p99: at(0.99) };
}
