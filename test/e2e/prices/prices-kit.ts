import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeAnthropic, type FakeAnthropic } from '../../../ops/fake-providers/fake-anthropic-provider.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../../ops/fake-providers/fake-openai-provider.js';
import type { Clock } from '../../../src/clock.js';
import type { RecordedEvent } from '../../../src/eventstore/event-store.js';
import type { Gateway } from '../../../src/main.js';
import { AdminClient } from '../../support/admin-client.js';
import { createScratchDatabase } from '../../support/databases.js';
import { FAKE_ANTHROPIC_KEY, FAKE_OPENAI_KEY, startTestGateway, TEST_CATALOG } from '../../support/test-gateway.js';

/**
 * What the price suites share: gateways on a database of their own (so that price versions start at 1 and
 * are numbered as the tests say), in front of both fake providers, with a catalog file the test rewrites
 * to change prices. Amounts are worked out by hand from the test catalog (test/support/catalog.test.yaml):
 * openai/gpt-4o-mini at $0.15 input and $0.60 output per million tokens (150 and 600 n$ a token); the fake
 * provider's default usage is 12 input and 7 output tokens.
 */
export const MODEL = 'openai/gpt-4o-mini';
/** The test catalog's line of openai/gpt-4o-mini's rates, which `withRates` replaces. */
const MINI_RATES = '{ input_per_mtok: "0.15", output_per_mtok: "0.60", cached_input_per_mtok: "0.075" }';

export interface PriceWorld {
  readonly openai: FakeOpenAi;
  readonly anthropic: FakeAnthropic;
  readonly databaseUrl: string;
  /** The catalog file every gateway of the world reads. */
  readonly catalogFile: string;
  /** Rewrites the catalog file with openai/gpt-4o-mini at these rates (YAML flow mapping). */
  withRates(rates: string): void;
  start(clock?: Clock): Promise<Gateway & { dispose(): Promise<void> }>;
  close(): Promise<void>;
}

export async function openPriceWorld(label: string): Promise<PriceWorld> {
  const openai = await startFakeOpenAi({ apiKey: FAKE_OPENAI_KEY });
  const anthropic = await startFakeAnthropic({ apiKey: FAKE_ANTHROPIC_KEY });
  const database = await createScratchDatabase(label);
  const directory = mkdtempSync(join(tmpdir(), 'gw-prices-'));
  const catalogFile = join(directory, 'catalog.yaml');
  const catalogText = (rates: string) =>
    readFileSync(TEST_CATALOG, 'utf8')
      .replaceAll('"http://127.0.0.1:9/v1"', JSON.stringify(openai.url))
      .replaceAll('"http://127.0.0.1:9"', JSON.stringify(anthropic.url))
      .replace(MINI_RATES, rates);
  writeFileSync(catalogFile, catalogText(MINI_RATES));
  const gateways: Array<{ dispose(): Promise<void> }> = [];
  return {
    openai,
    anthropic,
    databaseUrl: database.url,
    catalogFile,
    withRates: (rates) => writeFileSync(catalogFile, catalogText(rates)),
    async start(clock) {
      const gateway = await startTestGateway({ DATABASE_URL: database.url, CATALOG_FILE: catalogFile }, {}, clock ? { clock } : {});
      gateways.push(gateway);
      return gateway;
    },
    async close() {
      for (const gateway of gateways) await gateway.dispose();
      await openai.close();
      await anthropic.close();
      await database.drop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The account events of one organization, by type. */
export async function accountEvents(gateway: Gateway, orgId: string, type: string): Promise<RecordedEvent[]> {
  return (await gateway.store.readStream(`account-${orgId}`)).filter((event) => event.type === type);
}

export const adminOf = (gateway: Gateway) => new AdminClient(gateway.url);

export async function chatRequest(gateway: Gateway, secret: string, body: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hello' }], ...body }),
  });
}
