import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { migrateToLatest, openPostgres, type Database } from '../../../src/db/database.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import { decodePostgresPosition, POSTGRES_START, type PostgresPosition } from '../../../src/eventstore/postgres/postgres-position.js';
import { readGlobalPage } from '../../../src/eventstore/postgres/postgres-reads.js';
import { createScratchDatabase } from '../../support/databases.js';

/**
 * A page of the global log read with stream prefixes (src/eventstore/postgres/postgres-reads.ts): it walks
 * `limit` rows of the log, returns the matching ones, and says how many rows it walked and where it stopped,
 * even when the rows at the end did not match, so the subscription resumes after them and knows whether the
 * page was full. A scratch database of its own: the positions below are those of this log alone.
 */
describe('Postgres event store: a page of the global log with stream prefixes', function () {
  this.timeout(20_000);
  let drop: () => Promise<void>;
  let database: Database;
  let store: PostgresEventStore;
  /** The position of each appended event, in log order, and its stream. */
  const log: Array<{ streamId: string; position: PostgresPosition }> = [];

  before(async () => {
    const scratch = await createScratchDatabase('es_page');
    drop = scratch.drop;
    database = await openPostgres({ url: scratch.url, poolSize: 2 });
    await migrateToLatest(database);
    store = new PostgresEventStore(database);
    // The log: account-1, key-1, account-2, account-3, key-2, account-4 (one event each, one append each).
    for (const streamId of ['account-1', 'key-1', 'account-2', 'account-3', 'key-2', 'account-4']) {
      const event = { id: randomUUID(), type: 'Noted', data: {}, metadata: { schemaVersion: 1, occurredAt: new Date().toISOString(), causedBy: 'system:test' } };
      const result = await store.append(streamId, [event], { expectedRevision: 'no_stream' });
      log.push({ streamId, position: decodePostgresPosition(result.position) });
    }
  });

  after(async () => {
    await store?.close();
    await database?.close();
    await drop?.();
  });

  const read = (after: PostgresPosition, limit: number) => readGlobalPage(database.kysely, after, limit, ['key-']);

  it('returns the matching rows of the walk, and the walk ends at its last row even when that row does not match', async () => {
    const page = await read(POSTGRES_START, 4);
    expect(page.events.map((event) => event.streamId)).to.deep.equal(['key-1']);
    expect(page.scanned).to.equal(4);
    expect(page.lastScanned).to.deep.equal(log[3]!.position);
  });

  it('resumes after the walk, and a last row that matches is returned once', async () => {
    const page = await read(log[3]!.position, 1);
    expect(page.events.map((event) => event.streamId)).to.deep.equal(['key-2']);
    expect(page.scanned).to.equal(1);
    expect(page.lastScanned).to.deep.equal(log[4]!.position);
  });

  it('moves past a walk in which nothing matches', async () => {
    const page = await read(log[1]!.position, 2);
    expect(page.events).to.deep.equal([]);
    expect(page.scanned).to.equal(2);
    expect(page.lastScanned).to.deep.equal(log[3]!.position);
  });

  it('counts a short walk at the head of the log as short', async () => {
    const page = await read(log[3]!.position, 10);
    expect(page.events.map((event) => event.streamId)).to.deep.equal(['key-2']);
    expect(page.scanned).to.equal(2);
    expect(page.lastScanned).to.deep.equal(log[5]!.position);
  });

  it('returns nothing and no position after the head', async () => {
    const page = await read(log[5]!.position, 10);
    expect(page.events).to.deep.equal([]);
    expect(page.scanned).to.equal(0);
    expect(page.lastScanned).to.equal(undefined);
  });
});
