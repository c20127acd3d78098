import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { startGateway, type Gateway, type StartOptions } from '../../src/main.js';
import { testDatabaseUrl, testRedisPrefix } from './databases.js';

export const TEST_CATALOG = 'test/support/catalog.test.yaml';
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
/** The provider keys the test catalog names (`api_key_env`); the fake providers check them. */
export const FAKE_OPENAI_KEY = 'sk-fake-openai-key';
export const FAKE_ANTHROPIC_KEY = 'sk-fake-anthropic-key';
process.env.TEST_OPENAI_KEY = FAKE_OPENAI_KEY;
process.env.TEST_ANTHROPIC_KEY = FAKE_ANTHROPIC_KEY;

/**
 * A real gateway listening on a free port, in production mode against the run's Postgres unless the
 * caller overrides the environment (pass DATABASE_URL: '' for embedded mode on a temporary DATA_DIR).
 */
export interface FakeProviderUrls {
  /** The fake OpenAI's base URL (…/v1); also serves the `local` OpenAI-compatible provider. */
  readonly openai?: string;
  /** The fake Anthropic's base URL (without /v1). */
  readonly anthropic?: string;
}

/** The test catalog with its providers pointed at running fake providers. */
export function catalogFor(directory: string, providers: FakeProviderUrls): string {
  let text = readFileSync(TEST_CATALOG, 'utf8');
  if (providers.openai) text = text.replaceAll('"http://127.0.0.1:9/v1"', JSON.stringify(providers.openai));
  if (providers.anthropic) text = text.replaceAll('"http://127.0.0.1:9"', JSON.stringify(providers.anthropic));
  const path = join(directory, 'catalog.yaml');
  writeFileSync(path, text);
  return path;
}

export async function startTestGateway(env: Record<string, string> = {}, providers: FakeProviderUrls = {}, options: StartOptions = {}): Promise<Gateway & { dispose(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-test-data-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    CATALOG_FILE: catalogFor(dataDir, providers),
    DATABASE_URL: testDatabaseUrl(),
    DATA_DIR: dataDir,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    SHUTDOWN_GRACE_MS: '2000',
    // Used when the caller adds REDIS_URL: the run's prefix, which the global teardown removes.
    REDIS_PREFIX: testRedisPrefix('gateway'),
    ...env,
  });
  const gateway = await startGateway(config, options);
  return Object.assign(gateway, {
    async dispose() {
      await gateway.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
}
