import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { EventStore } from './event-store.js';
import { PostgresEventStore, type PostgresEventStoreOptions } from './postgres/postgres-event-store.js';

/**
 * The adapter follows the configuration (DESIGN.md section 2): EVENTSTORE_URL → EventStoreDB; otherwise
 * the Postgres event store on the database the read models use (Postgres at DATABASE_URL, or PGlite).
 * Read models and projection checkpoints stay on `database` in both cases.
 *
 * The EventStoreDB adapter is imported only when configured: its client (gRPC and protobuf) is about 10 MB
 * of heap and 25 MB of resident memory that a gateway on Postgres or PGlite would carry for nothing.
 */
export async function createEventStore(
  config: Pick<Config, 'EVENTSTORE_URL'>,
  database: Database,
  options: PostgresEventStoreOptions = {},
): Promise<EventStore> {
  if (!config.EVENTSTORE_URL) return new PostgresEventStore(database, options);
  const { EsdbEventStore } = await import('./esdb/esdb-event-store.js');
  return EsdbEventStore.fromConnectionString(config.EVENTSTORE_URL);
}
