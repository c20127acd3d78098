import { AdminApiClient, AdminApiError } from '../admin-client/admin-api-client.js';
import { runningGateway } from '../admin-client/running-gateway.js';
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../core.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { createEventStore } from '../eventstore/create-event-store.js';
import { isGatewayError } from '../errors/gateway-error.js';
import { localAuditBackend, runAuditCommand, type AuditBackend } from './audit-command.js';
import { NoReadModelError } from './audit-read-models.js';
import { remoteAuditBackend } from './remote-audit-backend.js';

/**
 * `npm run audit -- …` (audit-command.ts), configured like the gateway: EVENTSTORE_URL (EventStoreDB) or
 * the Postgres event store on DATABASE_URL, read models on DATABASE_URL; without DATABASE_URL, PGlite in
 * DATA_DIR, or, while a gateway holds DATA_DIR, that gateway's admin API.
 */
const UNABLE_TO_RUN = 3;

async function main(args: string[]): Promise<number> {
  const config = loadConfig();
  const context = (backend: AuditBackend) => ({
    backend,
    now: new Date(),
    out: (text: string) => process.stdout.write(text),
    err: (line: string) => process.stderr.write(`${line}\n`),
  });
  const gateway = runningGateway(config);
  if (gateway) return runAuditCommand(args, context(remoteAuditBackend(new AdminApiClient(gateway))));
  const database = await openDatabase(config, { poolSize: 2, applicationName: 'model-gateway-audit' });
  try {
    const store = await createEventStore(config, database);
    try {
      return await runAuditCommand(args, context(localAuditBackend({ store, readModels: database.kysely })));
    } finally {
      await store.close();
    }
  } finally {
    await database.close();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof AdminApiError) process.stderr.write(`${error.code}: ${error.message}\n`);
  else if (isGatewayError(error)) process.stderr.write(`${error.code}: ${error.message}\n`);
  else if (error instanceof ConfigError || error instanceof DataDirLockedError || error instanceof NoReadModelError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = UNABLE_TO_RUN;
}
