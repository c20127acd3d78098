import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { migrateToLatest, openPostgres, type Database } from '../../../src/db/database.js';
import { WrongExpectedRevisionError } from '../../../src/eventstore/event-store.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import { createScratchDatabase } from '../../support/databases.js';

/**
 * The stream lock of the Postgres store (src/db/migrations/0101-stream-write-locks.ts): while one writer
 * holds it, another instance's append to that stream waits and commits after it, so the holder's
 * read → decide → append cannot lose. Two stores on their own pools play two gateway instances.
 */
describe('Postgres event store: the stream write lock', function () {
  this.timeout(20_000);
  let drop: () => Promise<void>;
  const databases: Database[] = [];
  let holder: PostgresEventStore;
  let other: PostgresEventStore;

  before(async () => {
    const scratch = await createScratchDatabase('es_lock');
    drop = scratch.drop;
    for (let i = 0; i < 2; i++) databases.push(await openPostgres({ url: scratch.url, poolSize: 4 }));
    await migrateToLatest(databases[0]!);
    holder = new PostgresEventStore(databases[0]!);
    other = new PostgresEventStore(databases[1]!);
  });

  after(async () => {
    await Promise.all([holder?.close(), other?.close()]);
    await Promise.all(databases.map((database) => database.close()));
    await drop?.();
  });

  const event = (n: number) => ({ id: randomUUID(), type: 'Noted', data: { n }, metadata: { schemaVersion: 1, occurredAt: new Date().toISOString(), causedBy: 'system:test' } });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("holds another instance's append to the stream until the holder has appended and committed", async () => {
    const stream = `note-${randomUUID()}`;
    await other.append(stream, [event(0)], { expectedRevision: 'no_stream' });
    let otherAppended: Promise<unknown> | undefined;
    let otherDoneWhileLocked = false;
    const result = await holder.withStreamLock(stream, async (locked) => {
      const seen = await locked.read();
      // the other instance tries to append now, with the revision it knows
      otherAppended = other.append(stream, [event(1)], { expectedRevision: 0n }).finally(() => (otherDoneWhileLocked = true));
      await sleep(300);
      expect(otherDoneWhileLocked, 'the other append waits for the lock').to.equal(false);
      return locked.append([event(2)], { expectedRevision: seen.at(-1)!.revision });
    });
    expect(result.nextExpectedRevision).to.equal(1n);
    // the other append ran after the commit and found the stream moved on: a conflict, nothing written
    const failure = await otherAppended!.catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(WrongExpectedRevisionError);
    expect((await other.readStream(stream)).map((recorded) => (recorded.data as { n: number }).n)).to.deep.equal([0, 2]);
  });

  it('does not hold appends to other streams', async () => {
    const stream = `note-${randomUUID()}`;
    const elsewhere = `note-${randomUUID()}`;
    await holder.withStreamLock(stream, async () => {
      // would wait for the holder's transaction if it shared the lock, and the holder waits for it: a deadlock
      await other.append(elsewhere, [event(0)], { expectedRevision: 'no_stream' });
    });
    expect(await other.readStream(elsewhere)).to.have.length(1);
  });

  it('writes nothing when the work fails, and takes one append per lock', async () => {
    const stream = `note-${randomUUID()}`;
    const failure = await holder
      .withStreamLock(stream, async (locked) => {
        await locked.append([event(0)], { expectedRevision: 'no_stream' });
        await locked.append([event(1)], { expectedRevision: 0n });
      })
      .catch((error: unknown) => error);
    expect((failure as Error).message).to.equal('withStreamLock: one append per lock');
    expect(await holder.readStream(stream)).to.deep.equal([]);
  });
});
