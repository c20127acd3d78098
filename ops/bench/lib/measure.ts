import autocannon from 'autocannon';
import type { TargetResult } from './bench-report.js';
import { appendCounts } from './bench-processes.js';
import { cpuSecondsOf, cpuSpent, machineCpuSeconds, memoryOf, postgresBackendPids } from './os-usage.js';
import { pacedLoad } from './paced-load.js';

/** Where one share of the load goes: a server's origin and the headers its requests carry. */
export interface Entry {
  readonly origin: string;
  readonly headers: Record<string, string>;
}

/** A server (or several sharing the load) under load: where requests go, and which processes and databases are its cost. */
export interface Target {
  readonly name: string;
  /** The load is split evenly between these (two gateway instances: two entries). */
  readonly entries: readonly Entry[];
  readonly path: string;
  /** The target's own processes: the first one's peak RSS is reported. */
  readonly pids: readonly number[];
  readonly databases: readonly string[];
  readonly usesRedis: boolean;
  /** Gateways whose event-store appends are counted (conflicts a request), with the admin token that reads /metrics. */
  readonly gateways?: { readonly urls: readonly string[]; readonly adminToken: string };
}

export interface MeasureSettings {
  /** The throughput load's request (the fake provider answers at once). */
  readonly body: string;
  /** The latency loads' requests (a model the fake provider answers late: BENCH_PROVIDER_FIRST_BYTE_MS). */
  readonly pacedBody: string;
  readonly streamBody: string;
  readonly connections: number;
  readonly seconds: number;
  /** Seconds of closed-loop load before measuring, for each process that serves the target. */
  readonly warmUpSeconds: number;
  readonly pacedRate: number;
  readonly streamRate: number;
  readonly pacedSeconds: number;
  readonly adminPostgresUrl: string;
  readonly redisPid: number | undefined;
}

async function cpuReading(target: Target, settings: MeasureSettings) {
  const postgres = await postgresBackendPids(settings.adminPostgresUrl, target.databases);
  return {
    own: cpuSecondsOf(target.pids),
    postgres: cpuSecondsOf(postgres),
    redis: cpuSecondsOf(target.usesRedis && settings.redisPid !== undefined ? [settings.redisPid] : []),
    machine: machineCpuSeconds(),
    generator: cpuSecondsOf([process.pid]),
  };
}

async function appendsOf(target: Target): Promise<{ ok: number; conflict: number } | undefined> {
  if (!target.gateways) return undefined;
  const counts = await Promise.all(target.gateways.urls.map((url) => appendCounts(url, target.gateways!.adminToken)));
  return counts.reduce((sum, count) => ({ ok: sum.ok + count.ok, conflict: sum.conflict + count.conflict }), { ok: 0, conflict: 0 });
}

/** Closed-loop load on every entry at once, the connections split between them; totals summed, latency the worst entry's. */
async function closedLoop(target: Target, settings: MeasureSettings, seconds: number) {
  const connections = Math.max(1, Math.floor(settings.connections / target.entries.length));
  const results = await Promise.all(
    target.entries.map((entry) =>
      autocannon({ url: entry.origin + target.path, method: 'POST', headers: { 'content-type': 'application/json', ...entry.headers }, body: settings.body, connections, duration: seconds }),
    ),
  );
  return {
    total: results.reduce((sum, result) => sum + result.requests.total, 0),
    perSecond: results.reduce((sum, result) => sum + result.requests.average, 0),
    p50: Math.max(...results.map((result) => result.latency.p50)),
    p99: Math.max(...results.map((result) => result.latency.p99)),
    errors: results.reduce((sum, result) => sum + result.errors + result.non2xx, 0),
    errorKinds: closedLoopErrorKinds(results),
  };
}

/** Failed requests of the closed loop by kind: the answer's status, or the client's timeout or connection error. */
function closedLoopErrorKinds(results: readonly autocannon.Result[]): Record<string, number> {
  const kinds: Record<string, number> = {};
  const add = (kind: string, count: number) => {
    if (count > 0) kinds[kind] = (kinds[kind] ?? 0) + count;
  };
  for (const result of results) {
    for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) {
      if (!status.startsWith('2')) add(`status ${status}`, stats.count ?? 0);
    }
    add('timeout', result.timeouts);
    add('connection error', result.errors - result.timeouts);
  }
  return kinds;
}

/** Throughput, CPU a request and appends under the closed-loop load, after a warm-up of `warmUpSeconds` a process. */
export async function underLoad(target: Target, settings: MeasureSettings, warmUpSeconds: number) {
  // Warm-up (JIT, modules loaded on first use, pools, caches): the same seconds of load for every server of
  // the target (each origin is one process). With 2 s for the whole target, each of two instances got half
  // the warm-up of one, and the first target measured on them paid the rest (about 60 µs a request more than
  // a second measurement).
  await closedLoop(target, settings, warmUpSeconds * new Set(target.entries.map((entry) => entry.origin)).size);
  const before = await cpuReading(target, settings);
  const appendsBefore = await appendsOf(target);
  // the resident set under load, sampled (VmHWM would include start-up, e.g. PGlite's initdb)
  let loadedRss: number | undefined;
  const sampler = setInterval(() => {
    const rss = target.pids[0] === undefined ? undefined : memoryOf(target.pids[0], 'VmRSS');
    if (rss !== undefined) loadedRss = Math.max(loadedRss ?? 0, rss);
  }, 250);
  let load: Awaited<ReturnType<typeof closedLoop>>;
  try {
    load = await closedLoop(target, settings, settings.seconds);
  } finally {
    clearInterval(sampler);
  }
  const after = await cpuReading(target, settings);
  const appendsAfter = await appendsOf(target);
  const perRequest = (seconds: number | undefined) => (seconds === undefined || load.total === 0 ? undefined : (seconds * 1e6) / load.total);
  const generator = cpuSpent(before.generator, after.generator);
  const machine = before.machine === undefined || after.machine === undefined || generator === undefined ? undefined : after.machine - before.machine - generator;
  return {
    load,
    cpu: {
      own: perRequest(cpuSpent(before.own, after.own)),
      postgres: perRequest(target.databases.length === 0 ? undefined : cpuSpent(before.postgres, after.postgres)),
      redis: perRequest(cpuSpent(before.redis, after.redis)),
      machine: perRequest(machine),
    },
    appendsPerRequest: appendsBefore && appendsAfter && load.total > 0 ? (appendsAfter.ok - appendsBefore.ok) / load.total : undefined,
    conflictsPerRequest: appendsBefore && appendsAfter && load.total > 0 ? (appendsAfter.conflict - appendsBefore.conflict) / load.total : undefined,
    loadedRss,
  };
}

export async function measure(target: Target, settings: MeasureSettings): Promise<TargetResult> {
  const { load, cpu, appendsPerRequest, conflictsPerRequest, loadedRss } = await underLoad(target, settings, settings.warmUpSeconds);
  const paced = { entries: target.entries, path: target.path, seconds: settings.pacedSeconds };
  const latency = await pacedLoad({ ...paced, body: settings.pacedBody, ratePerSecond: settings.pacedRate });
  const streaming = await pacedLoad({ ...paced, body: settings.streamBody, ratePerSecond: settings.streamRate, firstByte: true });
  return {
    name: target.name,
    requests: load.total,
    perSecond: load.perSecond,
    p50: load.p50,
    p99: load.p99,
    errors: load.errors,
    errorKinds: load.errorKinds,
    cpu,
    appendsPerRequest,
    conflictsPerRequest,
    paced: { ratePerSecond: settings.pacedRate, p50: latency.p50, p99: latency.p99, errors: latency.errors, errorKinds: latency.errorKinds },
    streaming: { ratePerSecond: settings.streamRate, p50: streaming.p50, p99: streaming.p99, errors: streaming.errors, errorKinds: streaming.errorKinds },
    peakRssBytes: target.pids[0] === undefined ? undefined : memoryOf(target.pids[0], 'VmHWM'),
    loadedRssBytes: loadedRss,
  };
}
