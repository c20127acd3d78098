import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Database } from '../../../src/db/database.js';
import { InvalidEventError } from '../../../src/eventstore/event-envelope.js';
import { WrongExpectedRevisionError, type AppendSettled, type RecordedEvent } from '../../../src/eventstore/event-store.js';
import { appendsToManyStreams } from '../../../src/eventstore/append-coalescer.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import type { AppendOutcome } from '../../../src/metrics/gateway-metrics.js';
import { MeasuredEventStore } from '../../../src/metrics/measured-event-store.js';
import { decodePostgresPosition } from '../../../src/eventstore/postgres/postgres-position.js';
import { DATABASE_KINDS, openMigratedDatabase } from '../../support/databases.js';

/**
 * Appends to several streams in one statement and one commit (`appendMany`, migration 0103): each entry
 * checked against its own expected revision and answered on its own, and the global order intact when
 * such writes race single appends to the same streams.
 */
for (const kind of DATABASE_KINDS) {
  describe(`Postgres event store on ${kind}: appends to several streams at once`, function () {
    this.timeout(30_000);
    let database: Database;
    let dispose: () => Promise<void>;
    let store: PostgresEventStore;

    before(async () => {
      ({ database, dispose } = await openMigratedDatabase(kind, 'es_many'));
      store = new PostgresEventStore(database, { pollIntervalMs: 50 });
    });

    after(async () => {
      await store?.close();
      await dispose?.();
    });

    const event = (n: number, id: string = randomUUID()) => ({ id, type: 'Noted', data: { n }, metadata: { schemaVersion: 1, occurredAt: new Date().toISOString(), causedBy: 'system:test' } });
    const numbers = async (stream: string) => (await store.readStream(stream)).map((recorded) => (recorded.data as { n: number }).n);
    const resultOf = (settled: AppendSettled) => {
      if (!('result' in settled)) throw new Error(`expected a result, got ${String(settled.error)}`);
      return settled.result;
    };

    it('writes every stream in one transaction, each with its own expected revision; a conflict on one stops only that one', async () => {
      const [a, b, c] = [`note-${randomUUID()}`, `note-${randomUUID()}`, `note-${randomUUID()}`];
      await store.append(b, [event(0)], { expectedRevision: 'no_stream' });
      await store.append(c, [event(0), event(1)], { expectedRevision: 'no_stream' });
      const settled = await store.appendMany([
        { streamId: a, events: [event(10), event(11)], expectedRevision: 'no_stream' },
        { streamId: b, events: [event(20)], expectedRevision: 0n },
        // c is at revision 1: expecting 0 is a conflict
        { streamId: c, events: [event(30)], expectedRevision: 0n },
      ]);
      expect(resultOf(settled[0]!).nextExpectedRevision).to.equal(1n);
      expect(resultOf(settled[1]!).nextExpectedRevision).to.equal(1n);
      const conflict = (settled[2] as { error: unknown }).error;
      expect(conflict).to.be.instanceOf(WrongExpectedRevisionError);
      expect((conflict as WrongExpectedRevisionError).actual).to.equal(1n);
      expect(await numbers(a)).to.deep.equal([10, 11]);
      expect(await numbers(b)).to.deep.equal([0, 20]);
      expect(await numbers(c)).to.deep.equal([0, 1]);
      // one commit: both written entries carry the same transaction id
      const transactions = [settled[0]!, settled[1]!].map((entry) => decodePostgresPosition(resultOf(entry).position).transactionId);
      expect(transactions[0]).to.equal(transactions[1]);
    });

    it('answers every entry with its own outcome in the order given, whatever order the streams lock in (fails if answered in another order)', async () => {
      // Eight streams given in descending name order; stream i already holds i + 1 events, so every entry's
      // outcome is its own: a written entry answers its own next revision, a conflicting one its own actual
      // revision. Answered in any other order (sorted by name or by lock key, say), some entry gets another's.
      const run = randomUUID();
      const streams = Array.from({ length: 8 }, (_, index) => `note-${run}-${String.fromCharCode(104 - index)}`); // …-h, …-g, … …-a
      for (const [index, stream] of streams.entries()) await store.append(stream, Array.from({ length: index + 1 }, (_, n) => event(n)), { expectedRevision: 'no_stream' });
      // even entries expect their stream's real revision (index) and append two events; odd ones expect one too few
      const settled = await store.appendMany(
        streams.map((streamId, index) => ({ streamId, events: [event(100 + index), event(200 + index)], expectedRevision: BigInt(index % 2 === 0 ? index : index - 1) })),
      );
      const outcomes = settled.map((entry) => {
        if ('result' in entry) return `written, next ${entry.result.nextExpectedRevision}`;
        const error = entry.error as WrongExpectedRevisionError;
        return `conflict on ${error.streamId}, actual ${String(error.actual)}`;
      });
      expect(outcomes).to.deep.equal(
        streams.map((stream, index) => (index % 2 === 0 ? `written, next ${index + 2}` : `conflict on ${stream}, actual ${index}`)),
      );
      for (const [index, stream] of streams.entries()) {
        const written = index % 2 === 0 ? [100 + index, 200 + index] : [];
        expect(await numbers(stream), stream).to.deep.equal([...Array.from({ length: index + 1 }, (_, n) => n), ...written]);
      }
    });

    it('through the measured store the gateway builds, keeps the group write and counts each entry as an append of its own', async () => {
      const observed: Array<{ outcome: AppendOutcome; events: number }> = [];
      const measured = new MeasuredEventStore(store, { observeAppend: (outcome, _seconds, events) => observed.push({ outcome, events }) });
      // without appendMany on the measured store, the account service would append each account alone
      if (!appendsToManyStreams(measured)) expect.fail('the measured store hides the adapter\'s appendMany');
      const [a, b] = [`note-${randomUUID()}`, `note-${randomUUID()}`];
      await store.append(b, [event(0)], { expectedRevision: 'no_stream' });
      const settled = await measured.appendMany([
        { streamId: a, events: [event(1), event(2)], expectedRevision: 'no_stream' },
        // b exists: expecting no stream is a conflict
        { streamId: b, events: [event(3)], expectedRevision: 'no_stream' },
      ]);
      expect(settled.map((entry) => ('result' in entry ? 'result' : 'error'))).to.deep.equal(['result', 'error']);
      expect(observed).to.deep.equal([
        { outcome: 'ok', events: 2 },
        { outcome: 'conflict', events: 1 },
      ]);
    });

    it('answers a retry of the same entries as the first time, writing nothing', async () => {
      const [a, b] = [`note-${randomUUID()}`, `note-${randomUUID()}`];
      const appends = [
        { streamId: a, events: [event(1)], expectedRevision: 'no_stream' as const },
        { streamId: b, events: [event(2), event(3)], expectedRevision: 'no_stream' as const },
      ];
      const first = await store.appendMany(appends);
      const again = await store.appendMany(appends);
      expect(again.map(resultOf)).to.deep.equal(first.map(resultOf));
      expect(await numbers(a)).to.deep.equal([1]);
      expect(await numbers(b)).to.deep.equal([2, 3]);
    });

    it('answers an invalid entry with its own error and writes the others', async () => {
      const [a, b] = [`note-${randomUUID()}`, `note-${randomUUID()}`];
      const settled = await store.appendMany([
        { streamId: a, events: [], expectedRevision: 'no_stream' },
        { streamId: b, events: [event(5)], expectedRevision: 'no_stream' },
      ]);
      expect((settled[0] as { error: unknown }).error).to.be.instanceOf(InvalidEventError);
      expect(resultOf(settled[1]!).nextExpectedRevision).to.equal(0n);
      expect(await numbers(a)).to.deep.equal([]);
      expect(await numbers(b)).to.deep.equal([5]);
    });

    it('keeps the global order when writes to several streams race single appends to the same streams', async () => {
      const streams = Array.from({ length: 6 }, () => `note-${randomUUID()}`);
      const from = await store.headPosition();
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribe({ from }, (recorded) => void seen.push(recorded));
      // Each writer appends to its streams with 'any' (always accepted), half of them in the opposite order of
      // the streams: a store that took each stream's lock as its entry came would deadlock here.
      const writers = Array.from({ length: 24 }, (_, writer) => async () => {
        for (let round = 0; round < 5; round++) {
          const order = writer % 2 === 0 ? streams : [...streams].reverse();
          const mine = order.filter((_, index) => (index + writer + round) % 3 !== 0);
          if (writer % 3 === 0) {
            for (const stream of mine.slice(0, 2)) await store.append(stream, [event(writer * 100 + round)], { expectedRevision: 'any' });
          } else {
            const settled = await store.appendMany(mine.map((stream) => ({ streamId: stream, events: [event(writer * 100 + round)], expectedRevision: 'any' as const })));
            settled.forEach(resultOf);
          }
        }
      });
      await Promise.all(writers.map((write) => write()));
      const written = (await Promise.all(streams.map((stream) => store.readStream(stream)))).reduce((sum, events) => sum + events.length, 0);
      const deadline = Date.now() + 10_000;
      while (seen.length < written && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      await subscription.stop();
      expect(seen).to.have.length(written);
      // in the order the log delivers them, each stream's revisions come 0, 1, 2, … without a gap
      const next = new Map<string, bigint>();
      for (const recorded of seen) {
        expect(recorded.revision, `${recorded.streamId} out of order`).to.equal(next.get(recorded.streamId) ?? 0n);
        next.set(recorded.streamId, recorded.revision + 1n);
      }
    });
  });
}
