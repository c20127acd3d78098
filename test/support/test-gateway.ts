import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { startGateway, type Gateway } from '../../src/main.js';
import { testDatabaseUrl } from './databases.js';

export const TEST_CATALOG = 'test/support/catalog.test.yaml';
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/**
 * A real gateway listening on a free port, in production mode against the run's Postgres unless the
 * caller overrides the environment (pass DATABASE_URL: '' for embedded mode on a temporary DATA_DIR).
 */
export async function startTestGateway(env: Record<string, string> = {}): Promise<Gateway & { dispose(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-test-data-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    CATALOG_FILE: TEST_CATALOG,
    DATABASE_URL: testDatabaseUrl(),
    DATA_DIR: dataDir,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    SHUTDOWN_GRACE_MS: '2000',
    ...env,
  });
  const gateway = await startGateway(config);
  return Object.assign(gateway, {
    async dispose() {
      await gateway.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
}
