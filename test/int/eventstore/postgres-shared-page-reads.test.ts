import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Database } from '../../../src/db/database.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import { decodePostgresPosition, POSTGRES_START, type PostgresPosition } from '../../../src/eventstore/postgres/postgres-position.js';
import { readGlobalPage, type GlobalPage } from '../../../src/eventstore/postgres/postgres-reads.js';
import { nextReadTime } from '../../../src/eventstore/postgres/postgres-subscription.js';
import { cutPage, SharedPageReads } from '../../../src/eventstore/postgres/shared-page-reads.js';
import type { RecordedEvent } from '../../../src/eventstore/event-store.js';
import { DATABASE_KINDS, openMigratedDatabase } from '../../support/databases.js';

/**
 * The subscriptions of one store that ask for the same page in the same turn share one query
 * (src/eventstore/postgres/shared-page-reads.ts). What each one gets must be exactly what its own query would
 * have returned: the same events, the same walk (scanned, last row) and horizon. On Postgres and PGlite (the
 * embedded mode reads through the same store), each with a database of its own, so that the positions are
 * those of this log alone.
 */
for (const kind of DATABASE_KINDS) describe(`Postgres event store (${kind}): page reads shared by subscriptions`, function () {
  this.timeout(20_000);
  let dispose: () => Promise<void>;
  let database: Database;
  let store: PostgresEventStore;
  const positions: PostgresPosition[] = [];
  const STREAMS = ['account-1', 'key-1', 'account-2', 'org-1', 'account-1', 'key-2', 'video-1', 'account-3'];

  before(async () => {
    ({ database, dispose } = await openMigratedDatabase(kind, 'es_shared'));
    store = new PostgresEventStore(database);
    for (const streamId of STREAMS) {
      const event = { id: randomUUID(), type: 'Noted', data: {}, metadata: { schemaVersion: 1, occurredAt: new Date().toISOString(), causedBy: 'system:test' } };
      const result = await store.append(streamId, [event], { expectedRevision: 'any' });
      positions.push(decodePostgresPosition(result.position));
    }
  });

  after(async () => {
    await store?.close();
    await dispose?.();
  });

  /** The parts of a page a subscription acts on, comparable with deep equality. */
  const shape = (page: GlobalPage) => ({
    events: page.events.map((event: RecordedEvent) => `${event.streamId}@${event.revision} ${event.position}`),
    scanned: page.scanned,
    lastScanned: page.lastScanned,
    horizon: page.horizon,
    pendingBeyondHorizon: page.pendingBeyondHorizon,
  });

  it('cuts an unfiltered page into what each filtered query of any limit returns, from every starting row at or after its own', async () => {
    const filters = [undefined, ['account-'], ['key-', 'org-'], ['video-'], ['prices-']];
    const starts = [POSTGRES_START, ...positions];
    let compared = 0;
    for (const [index, pageStart] of starts.entries()) {
      const whole = await readGlobalPage(database.kysely, pageStart, 10);
      for (const after of starts.slice(index)) {
        for (const prefixes of filters) {
          for (const limit of [1, 2, 3, 5, 10]) {
            const own = await readGlobalPage(database.kysely, after, limit, prefixes);
            const where = `page from ${pageStart.sequence}, after ${after.sequence}, ${limit} rows, ${prefixes?.join('+') ?? 'all'}`;
            expect(shape(cutPage(whole, after, limit, prefixes)), where).to.deep.equal(shape(own));
            compared++;
          }
        }
      }
    }
    // 9 starting rows (the start and after each of the 8 events): 45 pairs of a page's start and a later or
    // equal one, × 5 filters × 5 limits
    expect(compared).to.equal(1_125);
  });

  it('reads once for the requests of one turn, and again only for those past a full page', async () => {
    const reads: Array<{ after: bigint; limit: number; prefixes: string }> = [];
    const shared = new SharedPageReads((after, limit, prefixes) => {
      reads.push({ after: after.sequence, limit, prefixes: prefixes?.join('+') ?? 'all' });
      return readGlobalPage(database.kysely, after, limit, prefixes);
    });
    const start = positions[1]!;
    const [ledger, alerts, access, same, elsewhere] = await Promise.all([
      shared.readPage(start, 500, undefined),
      shared.readPage(start, 500, ['account-', 'org-', 'key-']),
      shared.readPage(start, 3, ['key-', 'org-']),
      shared.readPage(start, 3, ['key-', 'org-']),
      shared.readPage(positions[5]!, 500, ['video-']),
    ]);
    // one unfiltered read at the largest limit from the earliest row: it reached the horizon, so it also
    // answers the request from further on
    expect(reads).to.deep.equal([{ after: start.sequence, limit: 500, prefixes: 'all' }]);
    expect(shape(ledger)).to.deep.equal(shape(await readGlobalPage(database.kysely, start, 500)));
    expect(shape(alerts)).to.deep.equal(shape(await readGlobalPage(database.kysely, start, 500, ['account-', 'org-', 'key-'])));
    expect(shape(access)).to.deep.equal(shape(await readGlobalPage(database.kysely, start, 3, ['key-', 'org-'])));
    expect(shape(same)).to.deep.equal(shape(access));
    expect(elsewhere.events.map((event) => event.streamId)).to.deep.equal(['video-1']);
    expect(shape(elsewhere)).to.deep.equal(shape(await readGlobalPage(database.kysely, positions[5]!, 500, ['video-'])));

    // a full page does not say what lies past it: the requests from further on are read again, together
    reads.length = 0;
    const [catchingUp, ahead, aheadToo] = await Promise.all([
      shared.readPage(POSTGRES_START, 2, undefined),
      shared.readPage(positions[4]!, 5, ['key-']),
      shared.readPage(positions[5]!, 5, undefined),
    ]);
    // 5 rows from the start fill the page (the log has 8); from the fifth event on, 3 rows reach the horizon
    expect(reads).to.deep.equal([
      { after: 0n, limit: 5, prefixes: 'all' },
      { after: positions[4]!.sequence, limit: 5, prefixes: 'all' },
    ]);
    expect(shape(catchingUp)).to.deep.equal(shape(await readGlobalPage(database.kysely, POSTGRES_START, 2)));
    expect(shape(ahead)).to.deep.equal(shape(await readGlobalPage(database.kysely, positions[4]!, 5, ['key-'])));
    expect(shape(aheadToo)).to.deep.equal(shape(await readGlobalPage(database.kysely, positions[5]!, 5)));

    // the same filter and limit: their own (filtered) query, once
    reads.length = 0;
    await Promise.all([shared.readPage(start, 3, ['key-', 'org-']), shared.readPage(start, 3, ['org-', 'key-'])]);
    expect(reads).to.deep.equal([{ after: start.sequence, limit: 3, prefixes: 'key-+org-' }]);
  });

  it('does not answer a request with a page read before it was made', async () => {
    let reads = 0;
    const shared = new SharedPageReads((after, limit, prefixes) => {
      reads++;
      return readGlobalPage(database.kysely, after, limit, prefixes);
    });
    const last = positions.at(-1)!;
    const first = await shared.readPage(last, 10, undefined);
    expect(first.events).to.have.length(0);
    const event = { id: randomUUID(), type: 'Noted', data: {}, metadata: { schemaVersion: 1, occurredAt: new Date().toISOString(), causedBy: 'system:test' } };
    await store.append('account-9', [event], { expectedRevision: 'no_stream' });
    const second = await shared.readPage(last, 10, ['account-']);
    expect(second.events.map((recorded) => recorded.streamId)).to.deep.equal(['account-9']);
    expect(reads).to.equal(2);
  });

  it('passes a failed read to every request it would have answered', async () => {
    const shared = new SharedPageReads(() => Promise.reject(new Error('the database is away')));
    const outcomes = await Promise.allSettled([shared.readPage(POSTGRES_START, 10, undefined), shared.readPage(POSTGRES_START, 10, ['key-'])]);
    expect(outcomes.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as Error).message : 'read'))).to.deep.equal(['the database is away', 'the database is away']);
  });

  it('wakes every waiter of one time on one tick, and reads next at the next whole multiple of the interval', async () => {
    const shared = new SharedPageReads(() => Promise.reject(new Error('not read')));
    const time = Date.now() + 30;
    const order: string[] = [];
    await Promise.all([shared.at(time).then(() => order.push('a')), shared.at(time).then(() => order.push('b'))]);
    expect(order).to.deep.equal(['a', 'b']);
    expect(Date.now()).to.be.at.least(time);
    // the next whole 100 ms after 1,000,030 and after 1,000,099 is 1,000,100; after 1,000,100 it is 1,000,200;
    // the next whole 50 ms after 1,000,049 is 1,000,050
    expect([nextReadTime(1_000_030, 100), nextReadTime(1_000_099, 100), nextReadTime(1_000_100, 100), nextReadTime(1_000_049, 50)]).to.deep.equal([
      1_000_100, 1_000_100, 1_000_200, 1_000_050,
    ]);
  });
});
