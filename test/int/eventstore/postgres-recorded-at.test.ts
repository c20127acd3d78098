import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { migrateToLatest, openPglite, openPostgres, type Database } from '../../../src/db/database.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import { createScratchDatabase } from '../../support/databases.js';

/**
 * Postgres records an event's time in microseconds; a read gives it as a Date, which keeps milliseconds.
 * The reads ask Postgres for the milliseconds (src/eventstore/postgres/postgres-reads.ts): they must be the
 * recorded time cut to the millisecond, never rounded up into the next one, in both kinds of read.
 */
const openers: Array<[string, () => Promise<{ database: Database; drop: () => Promise<void> }>]> = [
  [
    'Postgres',
    async () => {
      const scratch = await createScratchDatabase('es_time');
      return { database: await openPostgres({ url: scratch.url, poolSize: 2 }), drop: scratch.drop };
    },
  ],
  ['PGlite', async () => ({ database: await openPglite(), drop: async () => {} })],
];

for (const [name, open] of openers) {
  describe(`${name} event store: the recorded time of an event`, function () {
    this.timeout(30_000);
    let database: Database;
    let drop: () => Promise<void>;
    let store: PostgresEventStore;

    before(async () => {
      ({ database, drop } = await open());
      await migrateToLatest(database);
      store = new PostgresEventStore(database);
    });
    after(async () => {
      await store?.close();
      await database?.close();
      await drop?.();
    });

    it('is the recorded time cut to the millisecond, in a stream read and in a read of the log', async () => {
      const event = () => ({ id: randomUUID(), type: 'Noted', data: {}, metadata: { schemaVersion: 1, occurredAt: new Date().toISOString(), causedBy: 'system:test' } });
      await store.append('note-1', [event(), event(), event()], { expectedRevision: 'no_stream' });
      const recorded = ['2026-11-25 10:00:00.123999+00', '2026-11-25 10:00:00.999999+00', '2026-11-25 23:59:59.000001+00'];
      for (const [revision, at] of recorded.entries()) {
        await sql`update events set recorded_at = ${at}::timestamptz where stream_id = 'note-1' and revision = ${revision}`.execute(database.kysely);
      }
      const expected = ['2026-11-25T10:00:00.123Z', '2026-11-25T10:00:00.999Z', '2026-11-25T23:59:59.000Z'];
      expect((await store.readStream('note-1')).map((read) => read.recordedAt.toISOString())).to.deep.equal(expected);
      expect((await store.readAll()).map((read) => read.recordedAt.toISOString())).to.deep.equal(expected);
    });
  });
}
