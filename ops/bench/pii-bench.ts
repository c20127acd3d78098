/**
 * PII masking benchmark: `npm run bench:pii [runs]`.
 *
 * Prints, on a prompt text of the mix of a support request (ops/bench/lib/pii-bench-text.ts):
 * - the masking throughput of the checked identifiers (e-mail, phone, card, IBAN, SSN, national ids, IP
 *   addresses, secrets), in MB of request text per second: finding them and replacing them by placeholders;
 * - the throughput of the names and street addresses detector (compromise) on the same text, apart;
 * - the latency masking adds to a chat request with a 10 KB and a 1 MB prompt (the whole mask step's work:
 *   every detector, the placeholders, the body rebuilt), p50 over `runs` runs (default 5; 3 for 1 MB).
 * Each figure is given of CPU time and of the wall clock. Target for the checked identifiers: at least 50 MB/s
 * of CPU time (the wall clock of a shared machine also counts the waits for a core). The names detector has no target: it is a language
 * model of English and reads about a word at a time; its figure is what a long prompt costs.
 */
import { availableParallelism, loadavg } from 'node:os';
import { maskRequest } from '../../src/pii/mask-request.js';
import { parseSegment, segmentsOf } from '../../src/pii/detectors/english-entities.js';
import { personNames } from '../../src/pii/detectors/person-name-detector.js';
import { streetAddresses } from '../../src/pii/detectors/street-address-detector.js';
import { findIdentifiers, withoutOverlaps } from '../../src/pii/text-masker.js';
import { benchText } from './lib/pii-bench-text.js';

const RUNS = Number(process.argv[2] ?? 5);
const IDENTIFIER_TARGET_MB_S = 50;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * p50 of `runs` calls after one warm-up call, in milliseconds: of the wall clock, and of this process's CPU
 * time (user + system). On a machine shared with other work the wall clock also counts the time the
 * process waited for a core; the CPU time is the masking's own cost.
 */
async function timed(runs: number, work: () => unknown): Promise<{ wallMs: number; cpuMs: number }> {
  await work();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    await work();
    const used = process.cpuUsage(cpuBefore);
    wall.push(performance.now() - started);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wallMs: median(wall), cpuMs: median(cpu) };
}

const mbPerSecond = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000);
const rate = (bytes: number, time: { wallMs: number; cpuMs: number }, digits: number) =>
  `${mbPerSecond(bytes, time.cpuMs).toFixed(digits)} MB/s of CPU time (${mbPerSecond(bytes, time.wallMs).toFixed(digits)} MB/s of wall clock)`;
const duration = (time: { wallMs: number; cpuMs: number }) =>
  time.cpuMs >= 1000 ? `${(time.cpuMs / 1000).toFixed(2)} s of CPU time (${(time.wallMs / 1000).toFixed(2)} s of wall clock)` : `${time.cpuMs.toFixed(1)} ms of CPU time (${time.wallMs.toFixed(1)} ms of wall clock)`;

async function main(): Promise<void> {
  const identifierText = benchText(8_000_000);
  const identifiers = await timed(RUNS, () => withoutOverlaps(findIdentifiers(identifierText)));

  const namesText = benchText(200_000);
  const names = await timed(RUNS, () => {
    for (const segment of segmentsOf(namesText)) {
      const parsed = parseSegment(segment);
      streetAddresses(parsed);
      personNames(parsed);
    }
  });

  const latency = async (bytes: number, runs: number) => {
    const body = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: benchText(bytes) }] };
    return timed(runs, () => maskRequest('chat', body));
  };
  const small = await latency(10_000, Math.max(RUNS, 20));
  const large = await latency(1_000_000, Math.min(RUNS, 3));

  const verdict = mbPerSecond(identifierText.length, identifiers.cpuMs) >= IDENTIFIER_TARGET_MB_S ? 'meets' : 'MISSES';
  process.stdout.write(
    [
      `PII masking (p50 of ${RUNS} runs, node ${process.version}, load average ${loadavg()[0]!.toFixed(2)} on ${availableParallelism()} cores)`,
      `  checked identifiers:     ${rate(identifierText.length, identifiers, 1)} on ${(identifierText.length / 1e6).toFixed(1)} MB: ${verdict} the ${IDENTIFIER_TARGET_MB_S} MB/s target`,
      `  names and addresses:     ${rate(namesText.length, names, 3)} on ${(namesText.length / 1e3).toFixed(0)} KB`,
      `  added to a 10 KB prompt: ${duration(small)}`,
      `  added to a 1 MB prompt:  ${duration(large)}`,
      '',
    ].join('\n'),
  );
}

await main();
