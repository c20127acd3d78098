import { Pool } from 'undici';

/**
 * Requests at a fixed rate (not as fast as the target answers, as under autocannon's closed loop), so the
 * latency measured is what a request costs at a normal load rather than time spent queueing. Each request
 * is timed with a sub-millisecond clock from its start to the end of its answer, or, with `firstByte`, to the
 * first chunk of the answer's body (a stream's first event). Requests go out on a keep-alive pool, as a
 * client library's would.
 */
export interface PacedLoadOptions {
  /** Servers that share the load, taking turns request by request (two gateway instances: two entries). */
  readonly entries: readonly { readonly origin: string; readonly headers: Record<string, string> }[];
  readonly path: string;
  readonly body: string;
  readonly ratePerSecond: number;
  readonly seconds: number;
  readonly firstByte?: boolean;
}

export interface PacedLoadResult {
  readonly requests: number;
  readonly errors: number;
  /** The errors by status and error code ("503 store_unavailable"), or by the client's error code. */
  readonly errorKinds: Record<string, number>;
  /** Milliseconds, with fractions. */
  readonly p50: number;
  readonly p99: number;
}

export async function pacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const pools = options.entries.map((entry) => new Pool(entry.origin, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 }));
  const headers = options.entries.map((entry) => ({ 'content-type': 'application/json', ...entry.headers }));
  const latencies: number[] = [];
  let errors = 0;
  const errorKinds: Record<string, number> = {};
  const inFlight = new Set<Promise<void>>();
  const one = async (turn: number): Promise<void> => {
    const started = performance.now();
    const index = turn % pools.length;
    try {
      const response = await pools[index]!.request({ path: options.path, method: 'POST', headers: headers[index], body: options.body });
      let timed = false;
      let body = '';
      for await (const chunk of response.body) {
        if (response.statusCode !== 200) body += chunk;
        if (options.firstByte && !timed) {
          latencies.push(performance.now() - started);
          timed = true;
        }
      }
      if (response.statusCode !== 200) {
        errors++;
        const code = /"code":"([^"]+)"/.exec(body)?.[1] ?? '';
        const kind = `${response.statusCode}${code ? ` ${code}` : ''}`;
        errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
      }
      else if (!timed) latencies.push(performance.now() - started);
    } catch (error) {
      errors++;
      const kind = (error as { code?: string }).code ?? 'connection error';
      errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
    }
  };
  const begin = performance.now();
  let sent = 0;
  const total = Math.round(options.ratePerSecond * options.seconds);
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - begin) / 1000) * options.ratePerSecond) + 1);
    for (; sent < due; sent++) {
      const request = one(sent);
      inFlight.add(request);
      void request.finally(() => inFlight.delete(request));
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  await Promise.all(pools.map((pool) => pool.close()));
  latencies.sort((a, b) => a - b);
  const at = (fraction: number) => latencies[Math.min(latencies.length - 1, Math.floor(fraction * latencies.length))] ?? Number.NaN;
  return { requests: total, errors, errorKinds, p50: at(0.5), p99: at(0.99) };
}
