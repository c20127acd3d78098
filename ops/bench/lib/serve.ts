/**
 * One server of the benchmark, in its own process (so each has its own event loop, as in production):
 *   tsx ops/bench/lib/serve.ts fake-provider
 *   tsx ops/bench/lib/serve.ts bare-proxy <port> <upstream base URL>
 * Prints `listening <url>` when ready; stops on SIGTERM.
 */
import { startFakeOpenAi } from '../../fake-providers/fake-openai-provider.js';
import { startBareProxy } from './bare-proxy.js';

const [what, port, upstream] = process.argv.slice(2);
let close: () => Promise<void>;
if (what === 'fake-provider') {
  const fake = await startFakeOpenAi({ record: false });
  process.stdout.write(`listening ${fake.url}\n`);
  close = () => fake.close();
} else if (what === 'bare-proxy') {
  const proxy = await startBareProxy(upstream!, Number(port));
  process.stdout.write(`listening ${proxy.url}\n`);
  close = () => proxy.close();
} else {
  throw new Error(`unknown server ${what}`);
}
process.once('SIGTERM', () => void close().then(() => process.exit(0)));
