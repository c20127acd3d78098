import { PROVIDER_FIRST_BYTE_MS } from './bench-processes.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IdleMemory } from './idle-embedded-memory.js';

interface PacedFigures {
  readonly ratePerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  /** By status and error code, e.g. "503 store_unavailable". */
  readonly errorKinds: Record<string, number>;
}

/** One target's figures from one run of `npm run bench`. CPU figures are µs per request, from the OS. */
export interface TargetResult {
  readonly name: string;
  readonly requests: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  /** The failed requests of the 64-connection load by kind (status, timeout, connection error). */
  readonly errorKinds: Record<string, number>;
  readonly cpu: {
    /** The target's own process(es): the gateway (and its projection worker), or the proxy. */
    readonly own: number | undefined;
    /** The Postgres backends serving the target's databases (undefined: none, or in-process PGlite). */
    readonly postgres: number | undefined;
    /** The benchmark's private Redis server (undefined: not used, or a shared server). */
    readonly redis: number | undefined;
    /** Every process and the kernel, the load generator excepted. */
    readonly machine: number | undefined;
  };
  /** Event-store appends that were written (one append carries a batch of commands), a request. */
  readonly appendsPerRequest?: number | undefined;
  /** Event-store appends refused as conflicts (another instance had appended to the stream), a request. */
  readonly conflictsPerRequest?: number | undefined;
  /** At a fixed rate of requests, latency to the end of the answer (ms). */
  readonly paced: PacedFigures;
  /** Streaming requests at a fixed rate, time to the first body chunk (ms). */
  readonly streaming: PacedFigures;
  /** Peak resident set of the target's main process since it started (bytes). */
  readonly peakRssBytes: number | undefined;
  /** The largest resident set sampled during the 64-connection load (bytes). */
  readonly loadedRssBytes: number | undefined;
}

const fixed = (value: number | undefined, digits: number) => (value === undefined || Number.isNaN(value) ? 'n/a' : value.toFixed(digits));
const megabytes = (bytes: number | undefined) => fixed(bytes === undefined ? undefined : bytes / 2 ** 20, 0);
const ratio = (value: number | undefined, floor: number | undefined) => (value === undefined || !floor ? undefined : value / floor);

/** The derived figures: everything as compared with the bare proxy of the same run. */
export function compared(result: TargetResult, floor: TargetResult) {
  const backing = result.cpu.postgres === undefined && result.cpu.redis === undefined ? undefined : (result.cpu.postgres ?? 0) + (result.cpu.redis ?? 0);
  return {
    throughputRatio: result.perSecond / floor.perSecond,
    ownCpuRatio: ratio(result.cpu.own, floor.cpu.own),
    postgresPlusRedisCpu: backing,
    postgresPlusRedisRatio: ratio(backing, floor.cpu.own),
    /** The machine's CPU a request (every process but the load generator) against the same figure of the proxy's load. */
    machineRatio: ratio(result.cpu.machine, floor.cpu.machine),
    pacedAddedP50: result.paced.p50 - floor.paced.p50,
    pacedAddedP99: result.paced.p99 - floor.paced.p99,
    streamingAddedP50: result.streaming.p50 - floor.streaming.p50,
  };
}

/** Two instances sharing one organization's load, against one instance alone. */
export interface ScaleOut {
  readonly one: TargetResult;
  readonly two: TargetResult;
  /** The same two instances with one organization each (no shared account): the control. */
  readonly apart?: TargetResult | undefined;
}

/** The balance equation of one gateway's ledger after the load, from its audit. */
export interface LedgerCheck {
  readonly name: string;
  readonly organizations: number;
  readonly mismatches: readonly string[];
}

/** Two instances against one: throughput, the gateways' CPU a request, Postgres CPU a request, conflicts. */
function scaleOutFigures(one: TargetResult, two: TargetResult) {
  return {
    throughputRatio: two.perSecond / one.perSecond,
    ownCpuRatio: ratio(two.cpu.own, one.cpu.own),
    postgresCpuRatio: ratio(two.cpu.postgres, one.cpu.postgres),
    conflictsPerRequest: two.conflictsPerRequest,
  };
}

export function printReport(
  results: readonly TargetResult[],
  floor: TargetResult,
  settings: { connections: number; seconds: number },
  scaleOut: ScaleOut | undefined,
): void {
  const { connections, seconds } = settings;
  const pacedRate = floor.paced.ratePerSecond;
  console.log(`\nnon-streaming chat completions, billing on, one run, the same fake provider; ${connections} connections for ${seconds} s (throughput, CPU),`);
  console.log(
    `then ${pacedRate} requests/s (latency) and ${floor.streaming.ratePerSecond} streaming requests/s (time to first byte), from a provider whose first byte takes ${PROVIDER_FIRST_BYTE_MS} ms\n`,
  );
  console.log(
    '| target | req/s | × proxy | CPU µs/req, own | × proxy | CPU µs/req, Postgres | CPU µs/req, Redis | PG+Redis × proxy | ' +
      `p50 ms @${pacedRate}/s | added | p99 ms @${pacedRate}/s | added | stream TTFB p50 ms | added | RSS MB under load | peak RSS MB | CPU µs/req, machine | × proxy | errors |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const result of results) {
    const derived = compared(result, floor);
    const isFloor = result === floor;
    const errors = result.errors + result.paced.errors + result.streaming.errors;
    console.log(
      `| ${result.name} | ${Math.round(result.perSecond)} | ${derived.throughputRatio.toFixed(2)} | ${fixed(result.cpu.own, 0)} | ${fixed(derived.ownCpuRatio, 2)} | ` +
        `${fixed(result.cpu.postgres, 0)} | ${fixed(result.cpu.redis, 0)} | ${fixed(derived.postgresPlusRedisRatio, 2)} | ` +
        `${fixed(result.paced.p50, 2)} | ${isFloor ? '-' : fixed(derived.pacedAddedP50, 2)} | ${fixed(result.paced.p99, 2)} | ${isFloor ? '-' : fixed(derived.pacedAddedP99, 2)} | ` +
        `${fixed(result.streaming.p50, 2)} | ${isFloor ? '-' : fixed(derived.streamingAddedP50, 2)} | ${megabytes(result.loadedRssBytes)} | ${megabytes(result.peakRssBytes)} | ` +
        `${fixed(result.cpu.machine, 0)} | ${fixed(derived.machineRatio, 2)} | ${errors} |`,
    );
  }
  for (const result of results) {
    const kinds = [...Object.entries(result.errorKinds).map(([kind, count]) => [`${kind} (under load)`, count]), ...Object.entries(result.paced.errorKinds).map(([kind, count]) => [`${kind} (paced)`, count]), ...Object.entries(result.streaming.errorKinds).map(([kind, count]) => [`${kind} (streaming)`, count])];
    if (kinds.length > 0) console.log(`errors of ${result.name}: ${kinds.map(([kind, count]) => `${count} × ${kind}`).join(', ')}`);
  }
  console.log('\nCPU per request is user + system time read from /proc: the target\'s own process(es); the Postgres backends of its');
  console.log('databases; the private Redis server; the whole machine minus the load generator. "added" is over the bare proxy.');
  console.log('targets (production): ≥ 0.40 × proxy throughput, own CPU ≤ 3 × proxy, Postgres + Redis ≤ 1 × proxy, the machine ≤ 4 × the proxy\'s machine,');
  console.log('≤ 1 ms added at p50, ≤ 2 ms added time to first byte (a provider whose first byte takes 20 ms), ≤ 300 MB RSS; embedded: ≥ 0.25 ×, own CPU ≤ 5 ×');
  if (scaleOut) {
    console.log('\nscale-out, one organization: two production instances sharing the load against one instance alone');
    console.log('| | req/s | CPU µs/req, gateways | CPU µs/req, Postgres | appends a request | conflicts a request |');
    console.log('|---|---|---|---|---|---|');
    const rows: [string, TargetResult][] = [['one instance', scaleOut.one], ['two instances', scaleOut.two]];
    if (scaleOut.apart) rows.push(['two instances, one organization each', scaleOut.apart]);
    for (const [label, result] of rows) {
      console.log(`| ${label} | ${Math.round(result.perSecond)} | ${fixed(result.cpu.own, 0)} | ${fixed(result.cpu.postgres, 0)} | ${fixed(result.appendsPerRequest, 3)} | ${fixed(result.conflictsPerRequest, 3)} |`);
    }
    for (const [label, two] of rows.slice(1)) {
      const figures = scaleOutFigures(scaleOut.one, two);
      console.log(`| ${label} ÷ one | ${figures.throughputRatio.toFixed(2)} | ${fixed(figures.ownCpuRatio, 2)} | ${fixed(figures.postgresCpuRatio, 2)} | | |`);
    }
    console.log('targets: throughput ≥ 1.00 × one instance\'s, the gateways\' CPU a request ≤ 1.10 × one instance\'s');
  }
}

export function printBalances(ledgers: readonly LedgerCheck[]): void {
  console.log('\nbalance equation after the load (credits − settled = balance, open reservations = reserved; the audit replays the log):');
  for (const ledger of ledgers) {
    console.log(`  ${ledger.name}: ${ledger.mismatches.length === 0 ? `holds for ${ledger.organizations} organization(s)` : `BROKEN: ${ledger.mismatches.join('; ')}`}`);
  }
}

/** Writes the run's figures as JSON under .bench/ (git-ignored) and returns the path. */
export function writeReport(
  results: readonly TargetResult[],
  floor: TargetResult,
  settings: Record<string, unknown>,
  scaleOut: ScaleOut | undefined,
  /** The scale-out rounds and their ratios (scale-rounds.ts), as they are. */
  scaleRounds: unknown,
  ledgers: readonly LedgerCheck[],
  idleEmbedded: IdleMemory | undefined,
): string {
  mkdirSync('.bench', { recursive: true });
  const path = join('.bench', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  const targets = results.map((result) => ({ ...result, versusProxy: compared(result, floor) }));
  const twoVersusOne = scaleOut ? scaleOutFigures(scaleOut.one, scaleOut.two) : undefined;
  const twoApartVersusOne = scaleOut?.apart ? scaleOutFigures(scaleOut.one, scaleOut.apart) : undefined;
  writeFileSync(path, `${JSON.stringify({ at: new Date().toISOString(), settings, targets, twoVersusOne, twoApartVersusOne, scaleRounds, ledgers, idleEmbedded }, null, 2)}\n`);
  return path;
}
