import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeAccountEvent } from '../../src/ledger/account-event-catalogue.js';
import type { AccountEvent } from '../../src/ledger/account-events.js';
import type { EventStore } from '../../src/eventstore/event-store.js';
import { freePort } from '../../ops/free-port.js';
import { startProcess, stop } from '../../ops/bench/lib/bench-processes.js';
import { catalogFor, FAKE_ANTHROPIC_KEY, FAKE_OPENAI_KEY, type FakeProviderUrls } from '../support/test-gateway.js';
import { eventually } from '../support/eventually.js';
import type { GatewayProcess } from '../support/gateway-process.js';

/**
 * What the reliability tier's files share: a catalog whose providers time out in seconds (so that a
 * stalled provider is a test of seconds, not of ten minutes), requests sent and read to their end, and
 * an organization's account events.
 */

/** The test catalog with every provider's timeout at `timeoutMs`, plus `closed/gpt-4o-mini` on a port nothing listens on. */
export async function reliabilityCatalog(directory: string, providers: FakeProviderUrls, timeoutMs: number): Promise<string> {
  const path = catalogFor(directory, providers);
  const closedPort = await freePort();
  let text = readFileSync(path, 'utf8').replace(/, timeout_ms: \d+/g, '');
  text = text.replace(/^( {2}\w+: +\{ kind: [^}]*?) \}$/gm, `$1, timeout_ms: ${timeoutMs} }`);
  text = text.replace(
    'models:\n',
    `  closed:    { kind: openai, base_url: "http://127.0.0.1:${closedPort}/v1", api_key_env: TEST_OPENAI_KEY, timeout_ms: ${timeoutMs} }\nmodels:\n` +
      `  - id: closed/gpt-4o-mini\n    upstream: gpt-4o-mini\n    category: text\n    max_output_tokens: 16384\n    pricing: { input_per_mtok: "0.15", output_per_mtok: "0.60" }\n`,
  );
  const written = join(directory, 'reliability-catalog.yaml');
  writeFileSync(written, text);
  return written;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The JSON body, when it is JSON. */
  readonly body: any;
  /** Milliseconds from sending to the end of the body. */
  readonly ms: number;
}

/** Sends a request and reads its answer to the end; a connection that breaks is `status` 0 with the error as text. */
export async function send(url: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Answer> {
  const started = Date.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? 60_000) });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, text, body, ms: Date.now() - started };
  } catch (error) {
    return { status: 0, headers: new Headers(), text: String((error as Error).cause ?? error), body: undefined, ms: Date.now() - started };
  }
}

export function postJson(url: string, secret: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return send(url, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** A chat request with its own output cap, so that its reserve does not depend on the model's ceiling. */
export function chatBody(options: { stream?: boolean; text?: string; model?: string } = {}): Record<string, unknown> {
  return {
    model: options.model ?? 'openai/gpt-4o-mini',
    messages: [{ role: 'user', content: options.text ?? 'Say hello in one short sentence.' }],
    max_tokens: 1_000,
    ...(options.stream ? { stream: true } : {}),
  };
}

export async function accountEvents(store: EventStore, orgId: string): Promise<AccountEvent[]> {
  return (await store.readStream(`account-${orgId}`).catch(() => [])).map(decodeAccountEvent);
}

/** Each reservation id with the events that reserved and closed it, in order. */
export function historyByReservation(events: readonly AccountEvent[]): Map<string, AccountEvent[]> {
  const histories = new Map<string, AccountEvent[]>();
  for (const event of events) {
    if (event.type === 'CreditsAdded' || event.type === 'AccessRulesChanged') continue;
    const id = event.data.reservationId;
    histories.set(id, [...(histories.get(id) ?? []), event]);
  }
  return histories;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Both fake providers in a process of their own (ops/bench/lib/serve.ts): answers of 10 MB and answers
 * without end cost the fakes real CPU, which the tests' own process (mocha, its clients) must not share.
 * Their requests choose their faults by name (`fake-fault:<name>`), so nothing is scripted from here.
 */
export async function startFakeProvidersProcess(): Promise<{ openai: string; anthropic: string; close(): Promise<void> }> {
  const running = await startProcess(['--import', 'tsx', 'ops/bench/lib/serve.ts', 'fake-providers', FAKE_OPENAI_KEY, FAKE_ANTHROPIC_KEY], {}, /listening (\S+ \S+)\n/);
  const [openai, anthropic] = running.url.split(' ') as [string, string];
  return { openai, anthropic, close: () => stop(running) };
}

/**
 * An organization with credits and a key, once the gateway's access cache knows the key: it learns it
 * from the log (its subscription), which a busy machine may take a moment to deliver.
 */
export async function customerOf(gateway: GatewayProcess, options: Parameters<GatewayProcess['admin']['organizationWithKey']>[0]) {
  const created = await gateway.admin.organizationWithKey(options);
  await eventually(async () => {
    if ((await fetch(`${gateway.url}/v1/models`, { headers: { 'x-api-key': created.secret } })).status !== 200) throw new Error('the key is not known yet');
  }, 20_000, 50);
  return created;
}
