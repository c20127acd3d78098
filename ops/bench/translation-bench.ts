/**
 * Stream translation benchmark: `npx tsx ops/bench/translation-bench.ts [runs]`.
 *
 * For each client × provider pair (the diagonal both translated and passed through): events per second
 * through the decoder + encoder, and the CPU time (user + system, `process.cpuUsage`) to translate one
 * 2,000-token answer (2,000 text deltas in the provider's real event shape) — p50 and p99 over `runs`
 * runs (default 200) after a warm-up. Target: p50 under 1 ms.
 */
import { FORMAT_NAMES, type FormatName } from '../../src/formats/canonical/format-name.js';
import type { ClientStream } from '../../src/formats/canonical/stream-codec.js';
import { StreamTranslator } from '../../src/formats/canonical/stream-translator.js';
import { formatCodecs } from '../../src/formats/format-codecs.js';
import { createPassThroughStream } from '../../src/formats/pass-through.js';
import type { SseEvent } from '../../src/formats/sse-event.js';
import type { AnswerSpec } from '../provider-answers/answer-spec.js';
import { providerStream } from '../provider-answers/provider-answers.js';

const RUNS = Number(process.argv[2] ?? 200);
const WARMUP = 50;
const TOKENS = 2000;
const WORDS = [' the', ' gate', 'way', ' trans', 'lates', ' "quoted"', ' naïve', ' 😀', ',', ' line\n'];

const answer: AnswerSpec = {
  name: 'bench',
  text: Array.from({ length: TOKENS }, (_, index) => WORDS[index % WORDS.length]!),
  stop: 'end_turn',
  usage: { input: 1200, cached: 0, cacheWrite: 0, output: TOKENS, reasoning: 0 },
};

type Mode = 'translated' | 'pass-through';

function open(provider: FormatName, client: FormatName, mode: Mode): ClientStream {
  const options = { requestId: 'gen-BenchRequestId0000000001', model: 'bench/model', created: 1_750_000_000, includeUsage: true };
  return mode === 'pass-through'
    ? createPassThroughStream(client, options)
    : new StreamTranslator(formatCodecs[provider].createDecoder(), formatCodecs[client].createEncoder(options));
}

function translateOnce(provider: FormatName, client: FormatName, mode: Mode, events: readonly SseEvent[]): number {
  const stream = open(provider, client, mode);
  const out: SseEvent[] = [];
  for (let i = 0; i < events.length; i++) stream.push(events[i]!, out);
  stream.end(out);
  return out.length;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const rows: string[][] = [];
let worstP50 = 0;
for (const provider of FORMAT_NAMES) {
  const events = providerStream(provider, answer);
  for (const client of FORMAT_NAMES) {
    const modes: Mode[] = provider === client ? ['translated', 'pass-through'] : ['translated'];
    for (const mode of modes) {
      for (let i = 0; i < WARMUP; i++) translateOnce(provider, client, mode, events);
      const cpu: number[] = [];
      let emitted = 0;
      const wallStart = process.hrtime.bigint();
      for (let i = 0; i < RUNS; i++) {
        const before = process.cpuUsage();
        emitted = translateOnce(provider, client, mode, events);
        const used = process.cpuUsage(before);
        cpu.push((used.user + used.system) / 1000);
      }
      const wallSeconds = Number(process.hrtime.bigint() - wallStart) / 1e9;
      cpu.sort((a, b) => a - b);
      const p50 = percentile(cpu, 50);
      if (mode === 'translated') worstP50 = Math.max(worstP50, p50);
      rows.push([
        `${provider} → ${client}`,
        mode,
        String(events.length),
        String(emitted),
        ((events.length * RUNS) / wallSeconds / 1e6).toFixed(2),
        p50.toFixed(3),
        percentile(cpu, 99).toFixed(3),
      ]);
    }
  }
}

const header = ['provider → client', 'mode', 'events in', 'events out', 'M events/s', 'CPU p50 ms', 'CPU p99 ms'];
const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
const line = (cells: readonly string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ');
console.log(`${TOKENS}-token answer, ${RUNS} runs per pair (after ${WARMUP} warm-up), node ${process.version}`);
console.log(line(header));
for (const row of rows) console.log(line(row));
console.log(`worst translated p50: ${worstP50.toFixed(3)} ms (target < 1 ms): ${worstP50 < 1 ? 'met' : 'NOT met'}`);
