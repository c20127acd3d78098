import type { AppendResult, EventStore, EventToAppend, ExpectedRevision } from '../../../src/eventstore/event-store.js';
import { EsdbEventStore } from '../../../src/eventstore/esdb/esdb-event-store.js';
import { appendToStream } from '../../../src/eventstore/postgres/append-to-stream.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import { openMigratedDatabase, type DatabaseKind } from '../../support/databases.js';

/** An append whose transaction stays open until the test commits it. */
export interface HeldAppend {
  readonly result: AppendResult;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

export interface EventStoreUnderTest {
  readonly store: EventStore;
  /** Appends in a transaction that does not commit yet; only where transactions can overlap. */
  readonly holdAppendOpen?: (streamId: string, events: readonly EventToAppend[], expected: ExpectedRevision) => Promise<HeldAppend>;
  dispose(): Promise<void>;
}

/** One adapter for the contract suite: how to open it here, or why it cannot run here. */
export interface EventStoreHarness {
  readonly name: string;
  readonly skipReason?: string;
  /** Why the late-commit case does not apply to this adapter. */
  readonly lateCommitSkipReason?: string;
  open(): Promise<EventStoreUnderTest>;
}

function postgresHarness(kind: DatabaseKind): EventStoreHarness {
  return {
    name: kind,
    ...(kind === 'pglite'
      ? { lateCommitSkipReason: 'PGlite is one session: two transactions never overlap, so no append can commit late' }
      : {}),
    async open() {
      const { database, dispose } = await openMigratedDatabase(kind, 'es_contract');
      const store = new PostgresEventStore(database, { pollIntervalMs: 250 });
      return {
        store,
        ...(kind === 'postgres'
          ? {
              holdAppendOpen: async (streamId, events, expected) => {
                const trx = await database.kysely.startTransaction().execute();
                try {
                  const result = await appendToStream(trx, streamId, events, expected);
                  return { result, commit: () => trx.commit().execute(), rollback: () => trx.rollback().execute() };
                } catch (error) {
                  await trx.rollback().execute();
                  throw error;
                }
              },
            }
          : {}),
        dispose: async () => {
          await store.close();
          await dispose();
        },
      };
    },
  };
}

function esdbHarness(): EventStoreHarness {
  const url = process.env.EVENTSTORE_URL;
  return {
    name: 'eventstoredb',
    ...(url ? {} : { skipReason: 'EVENTSTORE_URL not set: no EventStoreDB server on this machine' }),
    lateCommitSkipReason: 'EventStoreDB writes each append atomically at the end of its log: there is no open transaction to hold',
    async open() {
      if (!url) throw new Error('EVENTSTORE_URL is not set');
      const store = EsdbEventStore.fromConnectionString(url);
      return { store, dispose: () => store.close() };
    },
  };
}

export function eventStoreHarnesses(): EventStoreHarness[] {
  return [postgresHarness('postgres'), postgresHarness('pglite'), esdbHarness()];
}
