import { expect } from 'chai';
import type { RecordedEvent } from '../../../src/eventstore/event-store.js';
import { comparable, newEvent, newEvents, readAllWithPrefix, streamPrefix } from './contract-helpers.js';
import type { EventStoreUnderTest } from './event-store-harnesses.js';

/** readStream options, global order, readAll resumption, head and lag. */
export function describeReadContract(current: () => EventStoreUnderTest): void {
  describe('readStream', () => {
    let stream: string;
    before(async () => {
      stream = `${streamPrefix()}s`;
      await current().store.append(stream, newEvents(6), { expectedRevision: 'no_stream' });
    });
    const revisions = (events: RecordedEvent[]) => events.map((event) => event.revision);

    it('reads forwards from the start by default', async () => {
      expect(revisions(await current().store.readStream(stream))).to.deep.equal([0n, 1n, 2n, 3n, 4n, 5n]);
    });
    it('reads forwards from a revision, inclusive, up to maxCount', async () => {
      expect(revisions(await current().store.readStream(stream, { fromRevision: 2n, maxCount: 3 }))).to.deep.equal([2n, 3n, 4n]);
      expect(revisions(await current().store.readStream(stream, { fromRevision: 1n, maxCount: 1 }))).to.deep.equal([1n]);
    });
    it('reads backwards from the end by default, and from a revision inclusive', async () => {
      expect(revisions(await current().store.readStream(stream, { direction: 'backwards', maxCount: 2 }))).to.deep.equal([5n, 4n]);
      expect(revisions(await current().store.readStream(stream, { direction: 'backwards', fromRevision: 2n }))).to.deep.equal([2n, 1n, 0n]);
      expect(revisions(await current().store.readStream(stream, { direction: 'backwards', fromRevision: 'end', maxCount: 1 }))).to.deep.equal([5n]);
    });
    it('reads nothing past the end, and an absent stream as empty', async () => {
      expect(await current().store.readStream(stream, { fromRevision: 6n })).to.deep.equal([]);
      expect(await current().store.readStream(stream, { fromRevision: 'end' })).to.deep.equal([]);
      expect(await current().store.readStream(`${streamPrefix()}absent`)).to.deep.equal([]);
      expect(await current().store.readStream(`${streamPrefix()}absent`, { direction: 'backwards' })).to.deep.equal([]);
    });
  });

  describe('readAll', () => {
    it('keeps per-stream and global order across interleaved appends', async () => {
      const { store } = current();
      const prefix = streamPrefix();
      const written: Array<{ streamId: string; id: string }> = [];
      for (let round = 0; round < 4; round++) {
        for (const name of ['a', 'b', 'c']) {
          const batch = newEvents(round + 1);
          await store.append(`${prefix}${name}`, batch, { expectedRevision: 'any' });
          written.push(...batch.map((event) => ({ streamId: `${prefix}${name}`, id: event.id })));
        }
      }
      const read = await readAllWithPrefix(store, prefix);
      expect(read.map((event) => ({ streamId: event.streamId, id: event.id }))).to.deep.equal(written);
      for (const name of ['a', 'b', 'c']) {
        const ofStream = read.filter((event) => event.streamId === `${prefix}${name}`).map((event) => event.revision);
        expect(ofStream).to.deep.equal(ofStream.map((_, index) => BigInt(index)));
      }
    });

    it('resumes after a position (exclusive) without gaps or repeats, whatever the page size', async () => {
      const { store } = current();
      const prefix = streamPrefix();
      for (let index = 0; index < 10; index++) await store.append(`${prefix}${index % 3}`, newEvents(3), { expectedRevision: 'any' });
      const everything = (await readAllWithPrefix(store, prefix)).map(comparable);
      expect(everything).to.have.length(30);
      for (const pageSize of [1, 7, 30]) {
        const pages = (await readAllWithPrefix(store, prefix, pageSize)).map(comparable);
        expect(pages, `page size ${pageSize}`).to.deep.equal(everything);
      }
      const mine = await readAllWithPrefix(store, prefix);
      const after = await store.readAll({ from: mine[11]!.position, maxCount: 5 });
      expect(after[0]!.id, 'readAll from a position excludes that position').to.not.equal(mine[11]!.id);
      expect(after.filter((event) => event.streamId.startsWith(prefix)).map(comparable)).to.deep.equal(everything.slice(12, 12 + after.length));
    });

    it('reports the head and counts the events after a position', async () => {
      const { store } = current();
      const prefix = streamPrefix();
      const first = await store.append(`${prefix}a`, [newEvent()], { expectedRevision: 'no_stream' });
      const last = await store.append(`${prefix}b`, newEvents(4), { expectedRevision: 'no_stream' });
      expect(await store.headPosition()).to.equal(last.position);
      expect(await store.readAll({ from: last.position })).to.deep.equal([]);
      const lag = await store.eventsAfter(first.position, 1_000);
      expect(lag.events).to.equal(4);
      expect(lag.oldestRecordedAt).to.be.instanceOf(Date);
      expect((await store.eventsAfter(first.position, 2)).events).to.equal(2);
      expect(await store.eventsAfter(last.position, 1_000)).to.deep.equal({ events: 0, oldestRecordedAt: undefined });
    });
  });
}
