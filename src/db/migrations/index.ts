import type { Migration } from 'kysely';
import { eventStoreMigration } from './0001-event-store.js';
import { projectionCheckpointsMigration } from './0002-projection-checkpoints.js';
import { streamWriteLocksMigration } from './0003-stream-write-locks.js';
import { accountSnapshotsMigration } from './0100-account-snapshots.js';

/**
 * Every schema migration, by name; kysely runs them in name order. A feature adds its own file here.
 * Migrations never change once released: a new shape is a new migration.
 */
export const migrations: Record<string, Migration> = {
  '0001-event-store': eventStoreMigration,
  '0002-projection-checkpoints': projectionCheckpointsMigration,
  '0003-stream-write-locks': streamWriteLocksMigration,
  '0100-account-snapshots': accountSnapshotsMigration,
};
