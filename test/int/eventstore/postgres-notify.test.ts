import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { migrateToLatest, openPglite, openPostgres, type Database } from '../../../src/db/database.js';
import type { RecordedEvent } from '../../../src/eventstore/event-store.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import { createScratchDatabase } from '../../support/databases.js';

const event = (n: number) => ({ id: randomUUID(), type: 'Noted', data: { n }, metadata: { schemaVersion: 1, occurredAt: new Date().toISOString(), causedBy: 'system:test' } });

/**
 * The Postgres store notifies after the commit, not inside the append (src/db/migrations/0001-event-store.ts
 * says why). A subscriber in another process, here a second store on its own pool and LISTEN connection,
 * must still wake on the NOTIFY: both stores poll only once a minute, so only the notification can
 * deliver within the test's time.
 */
describe('Postgres event store notifications', function () {
  this.timeout(20_000);
  let drop: () => Promise<void>;
  const databases: Database[] = [];
  let writer: PostgresEventStore;
  let reader: PostgresEventStore;

  before(async () => {
    const scratch = await createScratchDatabase('es_notify');
    drop = scratch.drop;
    for (let i = 0; i < 2; i++) databases.push(await openPostgres({ url: scratch.url, poolSize: 4 }));
    await migrateToLatest(databases[0]!);
    writer = new PostgresEventStore(databases[0]!, { pollIntervalMs: 60_000 });
    reader = new PostgresEventStore(databases[1]!, { pollIntervalMs: 60_000 });
  });

  after(async () => {
    await Promise.all([writer?.close(), reader?.close()]);
    await Promise.all(databases.map((database) => database.close()));
    await drop?.();
  });

  it('wakes a subscriber of another store on each burst of appends, with no poll in between', async () => {
    const seen: RecordedEvent[] = [];
    let wake: (() => void) | undefined;
    const subscription = reader.subscribe({ from: await reader.headPosition() }, (recorded) => {
      seen.push(recorded);
      wake?.();
    });
    try {
      await subscription.caughtUp();
      for (const burst of [1, 25]) {
        const before = seen.length;
        const arrived = new Promise<void>((resolve) => {
          wake = () => seen.length >= before + burst && resolve();
        });
        // Concurrent appends to separate streams: they share NOTIFYs, and the last one must still be announced.
        await Promise.all(Array.from({ length: burst }, (_, i) => writer.append(`note-${randomUUID()}`, [event(i)], { expectedRevision: 'no_stream' })));
        const timedOut = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 10_000).unref());
        expect(await Promise.race([arrived.then(() => 'arrived' as const), timedOut])).to.equal('arrived');
      }
    } finally {
      await subscription.stop();
    }
  });

  it('sees events held back by an older transaction soon after it ends, though that transaction notifies no one', async () => {
    const seen: RecordedEvent[] = [];
    const subscription = reader.subscribe({ from: await reader.headPosition() }, (recorded) => void seen.push(recorded));
    const holder = await databases[1]!.kysely.connection().execute(async (connection) => {
      // a transaction with an id, older than the append: the reader's horizon stays below the append until it ends
      await sql`begin`.execute(connection);
      await sql`select pg_current_xact_id()`.execute(connection);
      try {
        await subscription.caughtUp();
        await writer.append(`note-${randomUUID()}`, [event(1)], { expectedRevision: 'no_stream' });
        await new Promise((resolve) => setTimeout(resolve, 5_000));
        expect(seen, 'held back while the older transaction runs').to.have.length(0);
      } finally {
        await sql`commit`.execute(connection);
      }
      return Date.now();
    });
    try {
      while (seen.length === 0 && Date.now() - holder < 5_000) await new Promise((resolve) => setTimeout(resolve, 10));
      // the reader re-reads at most GATED_RETRY_MAX_MS (250 ms) apart while events wait behind the horizon;
      // doubling from 2 ms up to the poll interval (a minute here), it slept from 4.1 s to 8.2 s after the append
      expect(seen, 'delivered').to.have.length(1);
      expect(Date.now() - holder).to.be.below(1_000);
    } finally {
      await subscription.stop();
    }
  });

  it('wakes its own subscribers after an append', async () => {
    const seen: RecordedEvent[] = [];
    const subscription = writer.subscribe({ from: await writer.headPosition() }, (recorded) => void seen.push(recorded));
    try {
      await subscription.caughtUp();
      await writer.append(`note-${randomUUID()}`, [event(1)], { expectedRevision: 'no_stream' });
      await subscription.caughtUp();
      expect(seen).to.have.length(1);
    } finally {
      await subscription.stop();
    }
  });

  it('once caught up, reads at most once per minReadIntervalMs, and still stops at once while it waits', async () => {
    const arrivals: number[] = [];
    const subscription = writer.subscribe({ from: await writer.headPosition(), minReadIntervalMs: 400 }, () => void arrivals.push(Date.now()));
    await subscription.caughtUp();
    await writer.append(`note-${randomUUID()}`, [event(1)], { expectedRevision: 'no_stream' });
    await subscription.caughtUp();
    await writer.append(`note-${randomUUID()}`, [event(2)], { expectedRevision: 'no_stream' });
    await subscription.caughtUp();
    expect(arrivals).to.have.length(2);
    // A lower bound only: a busy machine makes the gap longer, never shorter.
    expect(arrivals[1]! - arrivals[0]!).to.be.at.least(350);
    await subscription.stop();

    const waiting = writer.subscribe({ from: await writer.headPosition(), minReadIntervalMs: 60_000 }, () => {});
    await waiting.caughtUp();
    await writer.append(`note-${randomUUID()}`, [event(3)], { expectedRevision: 'no_stream' });
    await waiting.stop(); // would wait out the minute (past the test's timeout) if the wait ignored the stop
  });
});

/**
 * On PGlite only one process can open the data directory, so the store wakes the other stores of the
 * process without a `pg_notify` statement (Database.notify). A second store on the same database, polling
 * once a minute, must still wake at once; a NOTIFY sent in SQL (a rebuild's swap) still arrives too.
 */
describe('PGlite event store notifications', function () {
  this.timeout(20_000);
  let database: Database;
  let writer: PostgresEventStore;
  let reader: PostgresEventStore;

  before(async () => {
    database = await openPglite();
    await migrateToLatest(database);
    writer = new PostgresEventStore(database, { pollIntervalMs: 60_000 });
    reader = new PostgresEventStore(database, { pollIntervalMs: 60_000 });
  });

  after(async () => {
    await Promise.all([writer?.close(), reader?.close()]);
    await database?.close();
  });

  it('wakes a subscriber of another store on the same database after each append', async () => {
    const seen: RecordedEvent[] = [];
    const subscription = reader.subscribe({ from: await reader.headPosition() }, (recorded) => void seen.push(recorded));
    try {
      await subscription.caughtUp();
      for (const n of [1, 2, 3]) {
        await writer.append(`note-${randomUUID()}`, [event(n)], { expectedRevision: 'no_stream' });
        const deadline = Date.now() + 10_000;
        while (seen.length < n && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(seen, `append ${n}`).to.have.length(n);
      }
    } finally {
      await subscription.stop();
    }
  });

  it('delivers a NOTIFY sent in SQL at the commit, and a direct one at once, each to every listener of the channel', async () => {
    const heard: string[] = [];
    const unlisten = await database.listen('test_channel', (payload) => heard.push(payload));
    try {
      await database.kysely.transaction().execute(async (trx) => {
        await sql`select pg_notify('test_channel', 'from sql')`.execute(trx);
      });
      await database.notify('test_channel', 'direct');
      const deadline = Date.now() + 5_000;
      while (heard.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect([...heard].sort()).to.deep.equal(['direct', 'from sql']);
    } finally {
      await unlisten();
    }
    await database.notify('test_channel', 'after unlisten');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard).to.have.length(2);
  });
});
