/**
 * One server of the benchmark, in its own process (so each has its own event loop, as in production):
 *   tsx ops/bench/lib/serve.ts fake-provider
 *   tsx ops/bench/lib/serve.ts bare-proxy <port> <upstream base URL>
 *   tsx ops/bench/lib/serve.ts fake-providers <OpenAI key> <Anthropic key>   (both fakes, keeping no records:
 *     the reliability tier and soak, whose requests name their faults, `fake-fault:<name>`)
 * Prints `listening <url> [<url>]` when ready; stops on SIGTERM.
 */
import { startFakeAnthropic } from '../../fake-providers/fake-anthropic-provider.js';
import { startFakeOpenAi } from '../../fake-providers/fake-openai-provider.js';
import { startBareProxy } from './bare-proxy.js';

const [what, port, upstream] = process.argv.slice(2);
let close: () => Promise<void>;
if (what === 'fake-provider') {
  const fake = await startFakeOpenAi({ record: false });
  process.stdout.write(`listening ${fake.url}\n`);
  close = () => fake.close();
} else if (what === 'fake-providers') {
  const openai = await startFakeOpenAi({ record: false, apiKey: port! });
  const anthropic = await startFakeAnthropic({ record: false, apiKey: upstream! });
  process.stdout.write(`listening ${openai.url} ${anthropic.url}\n`);
  close = async () => void (await Promise.all([openai.close(), anthropic.close()]));
} else if (what === 'bare-proxy') {
  const proxy = await startBareProxy(upstream!, Number(port));
  process.stdout.write(`listening ${proxy.url}\n`);
  close = () => proxy.close();
} else {
  throw new Error(`unknown server ${what}`);
}
process.once('SIGTERM', () => void close().then(() => process.exit(0)));
