import { expect } from 'chai';
import { WrongExpectedRevisionError, type AppendResult, type ExpectedRevision } from '../../../src/eventstore/event-store.js';
import { collect, comparable, eventually, newEvent, newEvents, readAllWithPrefix, streamPrefix } from './contract-helpers.js';
import type { EventStoreUnderTest } from './event-store-harnesses.js';

const APPENDERS = 8;

/**
 * Racing appenders. On Postgres each append runs on its own pool connection, so the eight really overlap;
 * PGlite runs them one after the other (one session), which still checks the decisions.
 */
export function describeConcurrencyContract(current: () => EventStoreUnderTest): void {
  describe(`${APPENDERS} concurrent appenders`, () => {
    it('on one stream at an exact revision: exactly one wins each revision, the others get WrongExpectedRevisionError', async () => {
      const { store } = current();
      const stream = `${streamPrefix()}s`;
      await store.append(stream, [newEvent()], { expectedRevision: 'no_stream' });
      for (let round = 0; round < 10; round++) {
        const expected = BigInt(round);
        const outcomes = await Promise.allSettled(
          Array.from({ length: APPENDERS }, (_, appender) => store.append(stream, [newEvent({ appender, round })], { expectedRevision: expected })),
        );
        const winners = outcomes.filter((outcome): outcome is PromiseFulfilledResult<AppendResult> => outcome.status === 'fulfilled');
        const losers = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
        expect(winners, `round ${round}`).to.have.length(1);
        expect(winners[0]!.value.nextExpectedRevision).to.equal(expected + 1n);
        for (const loser of losers) {
          expect(loser.reason).to.be.instanceOf(WrongExpectedRevisionError);
          expect((loser.reason as WrongExpectedRevisionError).actual).to.equal(expected + 1n);
        }
      }
      const read = await store.readStream(stream);
      expect(read.map((event) => event.revision)).to.deep.equal(Array.from({ length: 11 }, (_, index) => BigInt(index)));
      expect(read.slice(1).map((event) => (event.data as { round: number }).round)).to.deep.equal(Array.from({ length: 10 }, (_, index) => index));
    });

    it('creating one stream with no_stream: exactly one wins', async () => {
      const { store } = current();
      for (let round = 0; round < 5; round++) {
        const stream = `${streamPrefix()}s`;
        const outcomes = await Promise.allSettled(
          Array.from({ length: APPENDERS }, () => store.append(stream, newEvents(2), { expectedRevision: 'no_stream' })),
        );
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).to.have.length(1);
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected') expect((outcome.reason as WrongExpectedRevisionError).actual).to.equal(1n);
        }
        expect(await store.readStream(stream)).to.have.length(2);
      }
    });

    it('on one stream with any and stream_exists: every append lands, none is lost, revisions stay contiguous', async () => {
      const { store } = current();
      const stream = `${streamPrefix()}s`;
      await store.append(stream, [newEvent()], { expectedRevision: 'no_stream' });
      const written = await Promise.all(
        Array.from({ length: APPENDERS }, async (_, appender) => {
          const ids: string[][] = [];
          for (let batch = 0; batch < 5; batch++) {
            const events = newEvents(2);
            const expectedRevision: ExpectedRevision = appender % 2 === 0 ? 'any' : 'stream_exists';
            await store.append(stream, events, { expectedRevision });
            ids.push(events.map((event) => event.id));
          }
          return ids;
        }),
      );
      const read = await store.readStream(stream);
      expect(read.map((event) => event.revision)).to.deep.equal(Array.from({ length: 1 + APPENDERS * 10 }, (_, index) => BigInt(index)));
      const position = new Map(read.map((event, index) => [event.id, index]));
      for (const batch of written.flat()) {
        const [first, second] = batch.map((id) => position.get(id));
        expect(first, 'every event is stored').to.be.a('number');
        expect(second, 'a batch stays together').to.equal(first! + 1);
      }
    });

    it('retrying one batch concurrently stores it once and gives every caller the same result', async () => {
      const { store } = current();
      for (const expectedRevision of ['any', 0n] as const) {
        const stream = `${streamPrefix()}s`;
        await store.append(stream, [newEvent()], { expectedRevision: 'no_stream' });
        const batch = newEvents(3);
        const results = await Promise.all(Array.from({ length: APPENDERS }, () => store.append(stream, batch, { expectedRevision })));
        expect(new Set(results.map((result) => `${result.nextExpectedRevision}/${result.position}`)).size, String(expectedRevision)).to.equal(1);
        expect(results[0]!.nextExpectedRevision).to.equal(3n);
        expect(await store.readStream(stream)).to.have.length(4);
      }
    });

    it('on many streams: readAll and a live subscription see every event exactly once, in stream order', async () => {
      const { store } = current();
      const prefix = streamPrefix();
      const live = collect(store, { from: await store.headPosition(), streamPrefixes: [prefix] });
      try {
        const written = await Promise.all(
          Array.from({ length: APPENDERS }, async (_, appender) => {
            const ids: string[] = [];
            for (let index = 0; index < 20; index++) {
              const events = newEvents(1 + ((appender + index) % 3));
              await store.append(`${prefix}${(appender * 7 + index) % 25}`, events, { expectedRevision: 'any' });
              ids.push(...events.map((event) => event.id));
            }
            return ids;
          }),
        );
        const expectedIds = written.flat().sort();
        // A reader sees a commit once every older transaction of the cluster has ended (the xmin horizon);
        // another process's open transaction, even in another database, delays it, never skips it.
        let read: Awaited<ReturnType<typeof readAllWithPrefix>> = [];
        await eventually(async () => {
          read = await readAllWithPrefix(store, prefix);
          expect(read.map((event) => event.id).sort()).to.deep.equal(expectedIds);
        });
        const lastRevision = new Map<string, bigint>();
        for (const event of read) {
          expect(event.revision, `${event.streamId} in order`).to.equal((lastRevision.get(event.streamId) ?? -1n) + 1n);
          lastRevision.set(event.streamId, event.revision);
        }
        await eventually(() => expect(live.events).to.have.length(read.length));
        expect(live.events.map(comparable)).to.deep.equal(read.map(comparable));
        expect(live.errors).to.deep.equal([]);
      } finally {
        await live.subscription.stop();
      }
    });
  });
}
