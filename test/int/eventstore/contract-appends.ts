import { expect } from 'chai';
import { InvalidEventError } from '../../../src/eventstore/event-envelope.js';
import { comparable, expectWrongRevision, newEvent, newEvents, streamPrefix } from './contract-helpers.js';
import type { EventStoreUnderTest } from './event-store-harnesses.js';

/** Expected revisions, idempotent ids and the envelope checks. */
export function describeAppendContract(current: () => EventStoreUnderTest): void {
  describe('append', () => {
    it('creates a stream with no_stream at revision 0 and reads back what was written', async () => {
      const { store } = current();
      const stream = `${streamPrefix()}account-1`;
      const events = [newEvent({ amount: '150000000', note: 'ü', nested: { list: [1, 'two', null, true] } }, 'CreditsAdded'), newEvent({}, 'KeyIssued')];
      const result = await store.append(stream, events, { expectedRevision: 'no_stream' });
      expect(result.nextExpectedRevision).to.equal(1n);

      const read = await store.readStream(stream);
      expect(read.map((event) => event.revision)).to.deep.equal([0n, 1n]);
      expect(read.map((event) => ({ id: event.id, type: event.type, data: event.data, metadata: event.metadata }))).to.deep.equal(events);
      expect(read.every((event) => event.streamId === stream && event.recordedAt instanceof Date)).to.equal(true);
      expect(read[1]!.position).to.equal(result.position);
    });

    it('refuses no_stream when the stream exists, and writes nothing', async () => {
      const { store } = current();
      const stream = `${streamPrefix()}s`;
      await store.append(stream, newEvents(2), { expectedRevision: 'no_stream' });
      await expectWrongRevision(store.append(stream, [newEvent()], { expectedRevision: 'no_stream' }), 1n);
      expect(await store.readStream(stream)).to.have.length(2);
    });

    it('refuses stream_exists on an absent stream and appends to an existing one', async () => {
      const { store } = current();
      const stream = `${streamPrefix()}s`;
      await expectWrongRevision(store.append(stream, [newEvent()], { expectedRevision: 'stream_exists' }), 'no_stream');
      expect(await store.readStream(stream)).to.deep.equal([]);
      await store.append(stream, [newEvent()], { expectedRevision: 'any' });
      const result = await store.append(stream, newEvents(2), { expectedRevision: 'stream_exists' });
      expect(result.nextExpectedRevision).to.equal(2n);
    });

    it('appends at an exact revision only when it is the last one, also on an absent stream', async () => {
      const { store } = current();
      const stream = `${streamPrefix()}s`;
      // Marten #2864: an exact revision was not checked while the stream did not exist.
      await expectWrongRevision(store.append(stream, [newEvent()], { expectedRevision: 0n }), 'no_stream');
      expect(await store.readStream(stream)).to.deep.equal([]);
      await store.append(stream, newEvents(3), { expectedRevision: 'no_stream' });
      await expectWrongRevision(store.append(stream, [newEvent()], { expectedRevision: 1n }), 2n);
      await expectWrongRevision(store.append(stream, [newEvent()], { expectedRevision: 3n }), 2n);
      const result = await store.append(stream, newEvents(2), { expectedRevision: 2n });
      expect(result.nextExpectedRevision).to.equal(4n);
      expect((await store.readStream(stream)).map((event) => event.revision)).to.deep.equal([0n, 1n, 2n, 3n, 4n]);
    });

    it('appends with any whether or not the stream exists', async () => {
      const { store } = current();
      const stream = `${streamPrefix()}s`;
      expect((await store.append(stream, [newEvent()], { expectedRevision: 'any' })).nextExpectedRevision).to.equal(0n);
      expect((await store.append(stream, newEvents(3), { expectedRevision: 'any' })).nextExpectedRevision).to.equal(3n);
    });
  });

  describe('idempotent event ids', () => {
    for (const kind of ['no_stream', 'exact', 'any'] as const) {
      it(`returns the original result for a retried append (${kind}) and stores it once`, async () => {
        const { store } = current();
        const stream = `${streamPrefix()}s`;
        if (kind === 'exact') await store.append(stream, newEvents(2), { expectedRevision: 'no_stream' });
        const expectedRevision = kind === 'exact' ? 1n : kind;
        const batch = newEvents(3);
        const first = await store.append(stream, batch, { expectedRevision });
        const again = await store.append(stream, batch, { expectedRevision });
        expect(again).to.deep.equal(first);
        const read = await store.readStream(stream);
        expect(read.map((event) => event.id).slice(-3)).to.deep.equal(batch.map((event) => event.id));
        expect(read).to.have.length(kind === 'exact' ? 5 : 3);
      });
    }

    it('treats the same ids at another place as a conflict', async () => {
      const { store } = current();
      const stream = `${streamPrefix()}s`;
      const batch = newEvents(2);
      await store.append(stream, batch, { expectedRevision: 'no_stream' });
      await store.append(stream, [newEvent()], { expectedRevision: 1n });
      await expectWrongRevision(store.append(stream, batch, { expectedRevision: 2n }), 2n);
      expect(await store.readStream(stream)).to.have.length(3);
    });

    it('rejects a batch that only partly overlaps the stream, and writes none of it', async () => {
      const { store } = current();
      const stream = `${streamPrefix()}s`;
      const batch = newEvents(2);
      await store.append(stream, batch, { expectedRevision: 'no_stream' });
      const fresh = newEvent();
      await expectWrongRevision(store.append(stream, [batch[1]!, fresh], { expectedRevision: 'any' }), 1n);
      await expectWrongRevision(store.append(stream, [...batch, fresh], { expectedRevision: 'no_stream' }), 1n);
      expect((await store.readStream(stream)).map(comparable)).to.have.length(2);
    });

    it('lets the same id live in two streams', async () => {
      const { store } = current();
      const prefix = streamPrefix();
      const event = newEvent();
      await store.append(`${prefix}a`, [event], { expectedRevision: 'no_stream' });
      await store.append(`${prefix}b`, [event], { expectedRevision: 'no_stream' });
      expect((await store.readStream(`${prefix}b`)).map((read) => read.id)).to.deep.equal([event.id]);
    });
  });

  describe('envelope', () => {
    const invalid: Array<[string, () => Parameters<EventStoreUnderTest['store']['append']>[1]]> = [
      ['an empty batch', () => []],
      ['a bigint in the data', () => [{ ...newEvent(), data: { amount: 5n } }]],
      ['a Date in the data', () => [{ ...newEvent(), data: { at: new Date() } }]],
      ['an unsafe integer in the data', () => [{ ...newEvent(), data: { amount: 2 ** 60 } }]],
      ['metadata without causedBy', () => [{ ...newEvent(), metadata: { schemaVersion: 1, occurredAt: new Date().toISOString() } as never }]],
      ['a schema version of 0', () => [{ ...newEvent(), metadata: { ...newEvent().metadata, schemaVersion: 0 } }]],
      ['an occurredAt that is not ISO-8601', () => [{ ...newEvent(), metadata: { ...newEvent().metadata, occurredAt: 'yesterday' } }]],
      ['a type that is not PascalCase', () => [{ ...newEvent(), type: '$system' }]],
      ['an id that is not a UUID', () => [{ ...newEvent(), id: 'event-1' }]],
      ['one id twice', () => {
        const event = newEvent();
        return [event, event];
      }],
    ];
    for (const [what, events] of invalid) {
      it(`refuses ${what} and writes nothing`, async () => {
        const { store } = current();
        const stream = `${streamPrefix()}s`;
        const error = await store.append(stream, events(), { expectedRevision: 'any' }).catch((rejection: unknown) => rejection);
        expect(error).to.be.instanceOf(InvalidEventError);
        expect(await store.readStream(stream)).to.deep.equal([]);
      });
    }
  });
}
