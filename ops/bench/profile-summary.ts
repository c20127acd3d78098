/**
 * Summarises a V8 CPU profile (`--cpu-prof`, e.g. from `BENCH_PROFILE=1 npm run bench`): the share of
 * self time by category (GC, socket writes, JSON, zod, express, event store, Redis, …) and the top
 * functions by self time.
 *   npx tsx ops/bench/profile-summary.ts .bench/CPU.….cpuprofile [top=25] [from=runSteps]
 * Samples before the first one inside the function `from` (default: the request pipeline's `runSteps`, i.e.
 * the first request) are left out, so that start-up (module loading, migrations) does not count.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** First match wins: the order puts the specific before the general. */
const CATEGORIES: ReadonlyArray<readonly [string, (frame: ProfileNode['callFrame'], stack: string) => boolean]> = [
  ['GC', (frame) => frame.functionName === '(garbage collector)'],
  ['idle', (frame) => frame.functionName === '(idle)' || frame.functionName === '(program)'],
  ['socket writes', (frame, stack) => /writev|writeGeneric|writeBuffer|writeUtf8String|writeLatin1String/.test(frame.functionName) || (frame.url === '' && /_writeGeneric|_writev|Socket\._write/.test(stack))],
  ['JSON', (frame) => frame.url === '' && /^(parse|stringify)$/.test(frame.functionName)],
  ['zod', (frame) => frame.url.includes('node_modules/zod')],
  ['express', (frame) => /node_modules\/(express|router|body-parser|send|finalhandler|path-to-regexp|on-finished|qs)/.test(frame.url)],
  ['pino (logging)', (frame) => /node_modules\/(pino|sonic-boom|fast-redact|thread-stream)/.test(frame.url)],
  ['pg / kysely', (frame) => /node_modules\/(pg|pg-protocol|pg-pool|pg-types|kysely|postgres-)/.test(frame.url)],
  ['Redis (ioredis)', (frame) => /node_modules\/(ioredis|redis-parser|@ioredis|standard-as-callback|denque)/.test(frame.url)],
  ['undici (provider calls)', (frame) => frame.url.includes('node_modules/undici')],
  ['BullMQ', (frame) => frame.url.includes('node_modules/bullmq')],
  ['PGlite', (frame) => frame.url.includes('@electric-sql/pglite') || frame.url.startsWith('wasm://')],
  ['tokenizer', (frame) => frame.url.includes('gpt-tokenizer') || frame.url.includes('o200k-token-counter')],
  ['event store', (frame) => frame.url.includes('/src/eventstore/')],
  ['ledger', (frame) => frame.url.includes('/src/ledger/')],
  ['projections', (frame) => frame.url.includes('/projections/')],
  ['access', (frame) => frame.url.includes('/src/access/')],
  ['ratelimit', (frame) => frame.url.includes('/src/ratelimit/')],
  ['formats + endpoints', (frame) => /\/src\/(formats|endpoints)\//.test(frame.url)],
  ['pipeline + http', (frame) => /\/src\/(pipeline|http)\//.test(frame.url)],
  ['providers', (frame) => frame.url.includes('/src/providers/')],
  ['other gateway code', (frame) => frame.url.includes('/src/')],
  ['node: http', (frame) => /node:_http|node:http/.test(frame.url)],
  ['node: streams + net', (frame) => /node:internal\/streams|node:net|node:internal\/stream_base/.test(frame.url)],
  ['node: other', (frame) => frame.url.startsWith('node:')],
  ['native (other)', (frame) => frame.url === ''],
];

const [path, topArgument, fromFunction = 'runSteps'] = process.argv.slice(2);
if (!path) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const inside = (id: number) => {
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) if (byId.get(at)!.callFrame.functionName === fromFunction) return true;
  return false;
};
const first = Math.max(0, profile.samples.findIndex(inside));
const selfMicros = new Map<number, number>();
profile.samples.forEach((id, index) => {
  if (index >= first) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
});

const categories = new Map<string, number>();
const functions = new Map<string, number>();
let busy = 0;
for (const [id, micros] of selfMicros) {
  const node = byId.get(id)!;
  const stack: string[] = [];
  for (let at: number | undefined = parent.get(id), depth = 0; at !== undefined && depth < 4; at = parent.get(at), depth++) stack.push(byId.get(at)!.callFrame.functionName);
  const category = CATEGORIES.find(([, matches]) => matches(node.callFrame, stack.join(' ')))?.[0] ?? 'other';
  categories.set(category, (categories.get(category) ?? 0) + micros);
  if (category !== 'idle') busy += micros;
  const { functionName, url, lineNumber } = node.callFrame;
  const name = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|src|projections)\//, '$1/')}:${lineNumber + 1}`;
  functions.set(name, (functions.get(name) ?? 0) + micros);
}
const percent = (micros: number) => `${((100 * micros) / busy).toFixed(1)} %`;
console.log(`busy CPU in the profile: ${(busy / 1e6).toFixed(2)} s (idle excluded)\n\n| category | share of busy CPU |\n|---|---|`);
for (const [category, micros] of [...categories].filter(([name]) => name !== 'idle').sort((a, b) => b[1] - a[1])) console.log(`| ${category} | ${percent(micros)} |`);
console.log(`\n| function (self time) | share |\n|---|---|`);
for (const [name, micros] of [...functions].filter(([name]) => !name.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, Number(topArgument ?? 25))) console.log(`| ${name} | ${percent(micros)} |`);
