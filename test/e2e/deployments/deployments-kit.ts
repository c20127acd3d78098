import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startFakeOpenAi, type FakeOpenAi } from '../../../ops/fake-providers/fake-openai-provider.js';
import { balanceOfAccount, reservedOfAccount } from '../../../src/audit/audit-fold.js';
import { replayLedger } from '../../../src/audit/audit-replay.js';
import type { RecordedEvent } from '../../../src/eventstore/event-store.js';
import type { Gateway } from '../../../src/main.js';
import { AdminClient } from '../../support/admin-client.js';
import { eventually } from '../../support/eventually.js';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/test-gateway.js';

/**
 * A gateway in front of three fake OpenAI servers (`east`, `west`, `backup`) and a closed port (`down`),
 * with a catalog of deployments and fallbacks written for these tests. Rates in n$ a token are the USD per
 * million tokens × 1,000: $0.15 → 150 n$, $0.60 → 600 n$. The fakes' default usage is 12 input and 7
 * output tokens; a chat of max_tokens 100 and the one message "hello" is estimated at 11 input tokens.
 */
export const CATALOG = (urls: { east: string; west: string; backup: string }) => `
providers:
  east:   { kind: openai, base_url: ${JSON.stringify(urls.east)}, api_key_env: TEST_OPENAI_KEY }
  west:   { kind: openai, base_url: ${JSON.stringify(urls.west)}, api_key_env: TEST_OPENAI_KEY }
  backup: { kind: openai, base_url: ${JSON.stringify(urls.backup)}, api_key_env: TEST_OPENAI_KEY }
  down:   { kind: openai, base_url: "http://127.0.0.1:9/v1", api_key_env: TEST_OPENAI_KEY }
models:
  # one deployment, retried: $0.15 / $0.60
  - id: east/retried
    upstream: gpt-4o-mini
    category: text
    max_output_tokens: 16384
    pricing: { input_per_mtok: "0.15", output_per_mtok: "0.60" }
    retry: { max_attempts: 3, initial_backoff_ms: 10, max_backoff_ms: 50, budget_ms: 10000, cooldown_after_failures: 10 }
  # the same with a retry budget of half a second: a Retry-After past it ends the request at once
  - id: east/brief
    upstream: gpt-4o-mini
    category: text
    max_output_tokens: 16384
    pricing: { input_per_mtok: "0.15", output_per_mtok: "0.60" }
    retry: { max_attempts: 3, initial_backoff_ms: 10, max_backoff_ms: 50, budget_ms: 500, cooldown_after_failures: 10 }
  # two deployments, one of them a closed port: the model's own rates at "down", west's own $0.30 / $1.20
  - id: east/split
    upstream: gpt-4o-mini
    category: text
    max_output_tokens: 16384
    pricing: { input_per_mtok: "0.15", output_per_mtok: "0.60" }
    deployments:
      - { id: down, provider: down, weight: 1 }
      - { id: west, provider: west, weight: 1, pricing: { input_per_mtok: "0.30", output_per_mtok: "1.20" } }
    retry: { max_attempts: 2, initial_backoff_ms: 10, max_backoff_ms: 50, cooldown_after_failures: 2, cooldown_ms: 60000 }
  # two live deployments, east all but always drawn first (weights 1,000,000 to 1); short cooldown
  - id: east/cooling
    upstream: gpt-4o-mini
    category: text
    max_output_tokens: 16384
    pricing: { input_per_mtok: "0.15", output_per_mtok: "0.60" }
    deployments:
      - { id: east, provider: east, weight: 1000000 }
      - { id: west, provider: west, weight: 1 }
    retry: { max_attempts: 2, initial_backoff_ms: 10, max_backoff_ms: 50, cooldown_after_failures: 2, cooldown_ms: 1500 }
  # a dear model that is down, with a cheap fallback: $3.00 / $15.00, then backup/mini at $0.10 / $0.20
  - id: down/dear
    upstream: gpt-4o
    category: text
    max_output_tokens: 16384
    pricing: { input_per_mtok: "3.00", output_per_mtok: "15.00" }
    retry: { max_attempts: 2, initial_backoff_ms: 10, max_backoff_ms: 50 }
    fallbacks: [backup/mini]
  - id: backup/mini
    upstream: gpt-4o-mini
    category: text
    max_output_tokens: 16384
    pricing: { input_per_mtok: "0.10", output_per_mtok: "0.20" }
  # a dear model a request may name as its own fallback: $1.00 / $4.00
  - id: backup/large
    upstream: gpt-4o
    category: text
    max_output_tokens: 16384
    pricing: { input_per_mtok: "1.00", output_per_mtok: "4.00" }
`;

export interface DeploymentWorld {
  readonly gateway: Gateway;
  readonly east: FakeOpenAi;
  readonly west: FakeOpenAi;
  readonly backup: FakeOpenAi;
  readonly admin: AdminClient;
  /** An organization with $1 = 1,000,000,000 n$ and a key (`models` limits the key's models). */
  customer(models?: string[]): Promise<{ orgId: string; secret: string; client: OpenAI }>;
  close(): Promise<void>;
}

export async function openDeploymentWorld(): Promise<DeploymentWorld> {
  const [east, west, backup] = await Promise.all([startFakeOpenAi({ apiKey: 'sk-fake-openai-key' }), startFakeOpenAi({ apiKey: 'sk-fake-openai-key' }), startFakeOpenAi({ apiKey: 'sk-fake-openai-key' })]);
  const directory = mkdtempSync(join(tmpdir(), 'gw-deployments-'));
  const catalogFile = join(directory, 'catalog.yaml');
  writeFileSync(catalogFile, CATALOG({ east: east.url, west: west.url, backup: backup.url }));
  const gateway = await startTestGateway({ CATALOG_FILE: catalogFile });
  const admin = new AdminClient(gateway.url);
  return {
    gateway,
    east,
    west,
    backup,
    admin,
    async customer(models) {
      const { orgId, secret } = await admin.organizationWithKey({ credits: '1', ...(models ? { key: { models } } : {}) });
      return { orgId, secret, client: new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0 }) };
    },
    async close() {
      await gateway.dispose();
      await Promise.all([east.close(), west.close(), backup.close()]);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export const ONE_USD = 1_000_000_000n;

/** The organization's account events of one type (read once its last reservation is closed). */
export async function accountEvents(gateway: Gateway, orgId: string, type: string): Promise<RecordedEvent[]> {
  await eventually(async () => expect(reservedOfAccount((await replayLedger(gateway.store, { orgId })).head.accounts.get(orgId)!)).to.equal(0n));
  return (await gateway.store.readStream(`account-${orgId}`)).filter((event) => event.type === type);
}

/**
 * The balance equation from the log alone (the finance audit's replay of the organization's account
 * stream, as `test/support/ledger-audit.ts` does for the whole log): credits − settled = balance, nothing
 * left reserved, every reservation reserved once and closed at most once; and every charge priced again at
 * the price entry and version its settle records comes out the same. (The account's own stream is read:
 * the global log's readers wait for every transaction open on the server, other test runs' included.)
 */
export async function expectBalanced(gateway: Gateway, orgId: string, balance: bigint): Promise<void> {
  const replay = async () => (await replayLedger(gateway.store, { orgId, reprice: true })).head;
  // the close is appended after the answer is sent: wait for it
  const head = await eventually(async () => {
    const folded = await replay();
    expect(reservedOfAccount(folded.accounts.get(orgId)!), 'reserved').to.equal(0n);
    return folded;
  });
  expect(head.anomalies, 'reservations reserved twice, or closed without being open').to.deep.equal([]);
  const account = head.accounts.get(orgId)!;
  expect(account.credits - account.settled, 'credits − settled').to.equal(balanceOfAccount(account));
  expect(balanceOfAccount(account), 'balance').to.equal(balance);
  expect(head.repricing?.mispriced, 'charges re-priced at their recorded prices').to.deep.equal([]);
}

/** One series of GET /metrics, 0 when absent. */
export async function metric(gateway: Gateway, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name}{`) && labels.split(',').every((label) => row.includes(label)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

export const hello = (model: string, extra: Record<string, unknown> = {}) => ({ model, max_tokens: 100, messages: [{ role: 'user' as const, content: 'hello' }], ...extra });
