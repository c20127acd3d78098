import type { Migration } from 'kysely';
import { eventStoreMigration } from './0001-event-store.js';
import { projectionCheckpointsMigration } from './0002-projection-checkpoints.js';
import { accountSnapshotsMigration } from './0100-account-snapshots.js';
import { streamWriteLocksMigration } from './0101-stream-write-locks.js';
import { accountOwnersMigration } from './0102-account-owners.js';
import { appendManyMigration } from './0103-append-many.js';
import { webhookDeliveriesMigration } from './0104-webhook-deliveries.js';
import { gatewayInstancesMigration } from './0105-gateway-instances.js';

/**
 * Every schema migration, by name; kysely runs them in name order. A feature adds its own file here.
 * Migrations never change once released: a new shape is a new migration, named to sort after every
 * released one (kysely refuses a database whose applied migrations are not a prefix of this order;
 * test/int/db/migrations-upgrade.test.ts).
 */
export const migrations: Record<string, Migration> = {
  '0001-event-store': eventStoreMigration,
  '0002-projection-checkpoints': projectionCheckpointsMigration,
  '0100-account-snapshots': accountSnapshotsMigration,
  '0101-stream-write-locks': streamWriteLocksMigration,
  '0102-account-owners': accountOwnersMigration,
  '0103-append-many': appendManyMigration,
  '0104-webhook-deliveries': webhookDeliveriesMigration,
  '0105-gateway-instances': gatewayInstancesMigration,
};
