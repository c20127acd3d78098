import { AdminApiClient, AdminApiError } from '../src/admin-client/admin-api-client.js';
import { runningGateway } from '../src/admin-client/running-gateway.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { openDatabase } from '../src/core.js';
import { DataDirLockedError } from '../src/db/data-dir-lock.js';
import { createEventStore } from '../src/eventstore/create-event-store.js';
import { runProjectionsCommand } from './projections-command.js';
import { runRemoteProjectionsCommand } from './remote-projections-command.js';
import { eventCatalogue, projections } from './registry.js';

/**
 * `npm run projections -- status | rebuild [name] | run`, configured like the gateway: DATABASE_URL (else
 * PGlite in DATA_DIR) for read models and checkpoints, EVENTSTORE_URL for EventStoreDB (else the Postgres
 * event store on the same database). In the embedded mode, while a gateway holds DATA_DIR, `status` and
 * `rebuild` go through that gateway's admin API (remote-projections-command.ts).
 */
async function main(): Promise<number> {
  const config = loadConfig();
  const gateway = runningGateway(config);
  if (gateway) {
    return runRemoteProjectionsCommand(process.argv.slice(2), new AdminApiClient(gateway), (line) => process.stdout.write(`${line}\n`), (line) => process.stderr.write(`${line}\n`));
  }
  const database = await openDatabase(config, { poolSize: 5, applicationName: 'model-gateway-projections' });
  try {
    const store = await createEventStore(config, database);
    try {
      return await runProjectionsCommand(process.argv.slice(2), {
        database,
        store,
        catalogue: eventCatalogue,
        projections,
        out: (line) => process.stdout.write(`${line}\n`),
        err: (line) => process.stderr.write(`${line}\n`),
        untilStopped: new Promise<void>((resolve) => {
          process.once('SIGTERM', resolve);
          process.once('SIGINT', resolve);
        }),
      });
    } finally {
      await store.close();
    }
  } finally {
    await database.close();
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  } else if (error instanceof AdminApiError) {
    process.stderr.write(`${error.code}: ${error.message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  }
}
