import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { EsdbEventStore } from './esdb/esdb-event-store.js';
import type { EventStore } from './event-store.js';
import { PostgresEventStore, type PostgresEventStoreOptions } from './postgres/postgres-event-store.js';

/**
 * The adapter follows the configuration (DESIGN.md section 2): EVENTSTORE_URL → EventStoreDB; otherwise
 * the Postgres event store on the database the read models use (Postgres at DATABASE_URL, or PGlite).
 * Read models and projection checkpoints stay on `database` in both cases.
 */
export function createEventStore(
  config: Pick<Config, 'EVENTSTORE_URL'>,
  database: Database,
  options: PostgresEventStoreOptions = {},
): EventStore {
  return config.EVENTSTORE_URL ? EsdbEventStore.fromConnectionString(config.EVENTSTORE_URL) : new PostgresEventStore(database, options);
}
