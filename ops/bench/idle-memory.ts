/**
 * The resident memory of an idle embedded gateway, alone: `npx tsx ops/bench/idle-memory.ts`
 * (`IDLE_SECONDS`, default 30; `BENCH_NODE_FLAGS`). `npm run bench` measures the same after its loads;
 * the measurement is lib/idle-embedded-memory.ts.
 */
import { buildGateway, startProcess, stop } from './lib/bench-processes.js';
import { describeIdleMemory, measureIdleEmbedded } from './lib/idle-embedded-memory.js';

buildGateway();
const fake = await startProcess(['--import', 'tsx', 'ops/bench/lib/serve.ts', 'fake-provider'], {}, /listening (\S+)/);
try {
  console.log(describeIdleMemory(await measureIdleEmbedded(fake.url)));
} finally {
  await stop(fake);
}
