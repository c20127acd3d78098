/**
 * `npm run demo`: the gateway doing its job on a fresh machine, with no provider account and no network.
 * It starts the demo providers (the fake OpenAI and Anthropic of ops/fake-providers, which the benchmarks
 * and the tests run too) and an embedded gateway on a fresh data directory with a demo catalog, creates
 * an organization with $10.00 and a key, prints a `curl` line and an `openai` snippet that work at once,
 * makes that request itself and shows what it cost, then prints the balance whenever a request changes
 * it, until Ctrl-C.
 *
 *   DEMO_PORT       port of the gateway (default: any free port)
 *   DEMO_DATA_DIR   data directory to use (default: a fresh temporary one, deleted on exit)
 *   DEMO_ONCE=1     exit after the first request (for scripts)
 *
 * DATABASE_URL, REDIS_URL and EVENTSTORE_URL are ignored: the demo always runs in the embedded mode.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatUsd, parseUsd } from '../../src/billing/money.js';
import { loadConfig } from '../../src/config.js';
import { startGateway } from '../../src/main.js';
import { startFakeAnthropic } from '../fake-providers/fake-anthropic-provider.js';
import { startFakeOpenAi } from '../fake-providers/fake-openai-provider.js';
import { DEMO_MODEL, DEMO_PROVIDER_KEY_ENV, demoCatalog, demoModelsLine } from './demo-catalog.js';

const providerKey = `demo-${randomBytes(8).toString('hex')}`;
process.env[DEMO_PROVIDER_KEY_ENV] = providerKey;
const openai = await startFakeOpenAi({ apiKey: providerKey, record: false });
const anthropic = await startFakeAnthropic({ apiKey: providerKey, record: false });

const keepDirectory = Boolean(process.env.DEMO_DATA_DIR);
const dataDir = process.env.DEMO_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'gateway-demo-'));
const catalogFile = join(dataDir, 'demo-catalog.yaml');
writeFileSync(catalogFile, demoCatalog(openai.url, anthropic.url));
const adminToken = randomBytes(24).toString('base64url');
const { DATABASE_URL: _database, REDIS_URL: _redis, EVENTSTORE_URL: _eventstore, ...environment } = process.env;
const gateway = await startGateway(
  loadConfig({ ...environment, DATA_DIR: dataDir, CATALOG_FILE: catalogFile, PORT: process.env.DEMO_PORT ?? '0', HOST: '127.0.0.1', ADMIN_TOKEN: adminToken, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' }),
);

async function admin(method: string, path: string, body?: unknown): Promise<Record<string, string>> {
  const response = await fetch(`${gateway.url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json', 'idempotency-key': `demo-${path}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`admin API ${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, string>;
}

const organization = await admin('POST', '/organizations', { name: 'Demo organization' });
await admin('POST', `/organizations/${organization.id}/credits`, { amount_usd: '10.00' });
const key = await admin('POST', `/organizations/${organization.id}/keys`, { name: 'demo key' });
const secret = key.key!;
const request = { model: DEMO_MODEL, messages: [{ role: 'user', content: 'Say hello' }], max_tokens: 50 };
const base = `${gateway.url}/v1`;

const print = (line = '') => process.stdout.write(`${line}\n`);
print(`Model gateway demo, running at ${gateway.url}`);
print(`  data directory  ${dataDir} (embedded mode${keepDirectory ? '' : '; deleted when the demo stops'})`);
print(`  admin token     ${adminToken}`);
print(`  organization    ${organization.id}, with $10.00 of credits`);
print(`  API key         ${secret}`);
print(`  models          ${demoModelsLine()}`);
print('  The models answer from demo providers on this machine: no provider account or network is needed.');
print();
print('A request with curl:');
print(`  curl -s ${base}/chat/completions -H 'Authorization: Bearer ${secret}' -H 'Content-Type: application/json' -d '${JSON.stringify(request)}'`);
print();
print('The same with the openai package (npm install openai):');
print(`  import OpenAI from 'openai';`);
print(`  const client = new OpenAI({ apiKey: '${secret}', baseURL: '${base}' });`);
print(`  const answer = await client.chat.completions.create({ model: '${DEMO_MODEL}', messages: [{ role: 'user', content: 'Say hello' }], max_tokens: 50 });`);
print('  console.log(answer.choices[0].message.content);');
print();

const answer = await fetch(`${base}/chat/completions`, {
  method: 'POST',
  headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
  body: JSON.stringify(request),
});
const completion = (await answer.json()) as { choices: Array<{ message: { content: string } }>; usage: { prompt_tokens: number; completion_tokens: number } };
let balance = await balanceOf();
print('That request, made just now:');
print(`  answer   ${JSON.stringify(completion.choices[0]!.message.content)}`);
print(`  usage    ${completion.usage.prompt_tokens} input and ${completion.usage.completion_tokens} output tokens`);
print(`  cost     $${formatUsd(parseUsd('10.00') - balance)} (reserved before the call, settled from the usage after it)`);
print(`  balance  $${formatUsd(balance)}`);
print();

let watcher: NodeJS.Timeout | undefined;
if (process.env.DEMO_ONCE) await stop(0);
print('Each request you make is shown here with its cost. Ctrl-C stops the demo.');
watcher = setInterval(() => {
  void balanceOf().then((now) => {
    if (now === balance) return;
    print(`  spent $${formatUsd(balance - now)}; balance $${formatUsd(now)}`);
    balance = now;
  });
}, 500);
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));

async function balanceOf(): Promise<bigint> {
  // the answer is sent before the settlement lands: wait for no open reservation
  for (let attempt = 0; ; attempt++) {
    const shown = await admin('GET', `/organizations/${organization.id}`);
    if (parseUsd(shown.reserved_usd!) === 0n || attempt > 50) return parseUsd(shown.balance_usd!);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function stop(code: number): Promise<never> {
  clearInterval(watcher);
  await gateway.stop();
  await openai.close();
  await anthropic.close();
  if (!keepDirectory) rmSync(dataDir, { recursive: true, force: true });
  process.exit(code);
}
