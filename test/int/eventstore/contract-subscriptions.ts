import { expect } from 'chai';
import { collect, comparable, eventually, newEvent, newEvents, readAllWithPrefix, sleep, streamPrefix } from './contract-helpers.js';
import type { GlobalPosition, RecordedEvent } from '../../../src/eventstore/event-store.js';
import type { EventStoreUnderTest, HeldAppend } from './event-store-harnesses.js';

/** Catch-up, live following, filters, errors, and the event that commits late. */
export function describeSubscriptionContract(current: () => EventStoreUnderTest, lateCommitSkipReason: string | undefined): void {
  describe('subscribe', () => {
    it('catches up, then follows live appends, each event once and in order', async () => {
      const { store } = current();
      const prefix = streamPrefix();
      await store.append(`${prefix}a`, newEvents(3), { expectedRevision: 'no_stream' });
      await store.append(`${prefix}b`, newEvents(2), { expectedRevision: 'no_stream' });
      const collector = collect(store, { streamPrefixes: [prefix] });
      try {
        await collector.subscription.caughtUp();
        expect(collector.events.map(comparable)).to.deep.equal((await readAllWithPrefix(store, prefix)).map(comparable));
        expect(collector.events).to.have.length(5);
        await store.append(`${prefix}a`, newEvents(2), { expectedRevision: 2n });
        await store.append(`${prefix}c`, [newEvent()], { expectedRevision: 'no_stream' });
        await eventually(() => expect(collector.events).to.have.length(8));
        await collector.subscription.caughtUp();
        expect(collector.events.map(comparable)).to.deep.equal((await readAllWithPrefix(store, prefix)).map(comparable));
      } finally {
        await collector.subscription.stop();
      }
    });

    it('starts after the given position (exclusive), as readAll does', async () => {
      const { store } = current();
      const prefix = streamPrefix();
      const first = await store.append(`${prefix}a`, [newEvent()], { expectedRevision: 'no_stream' });
      await store.append(`${prefix}a`, newEvents(2), { expectedRevision: 0n });
      const collector = collect(store, { from: first.position, streamPrefixes: [prefix] });
      try {
        await collector.subscription.caughtUp();
        expect(collector.events.map((event) => event.revision)).to.deep.equal([1n, 2n]);
      } finally {
        await collector.subscription.stop();
      }
    });

    it('delivers only streams with the given prefixes, and catches up past a tail of other streams', async () => {
      const { store } = current();
      const prefix = streamPrefix();
      await store.append(`${prefix}account-1`, newEvents(2), { expectedRevision: 'no_stream' });
      await store.append(`${prefix}key-1`, newEvents(2), { expectedRevision: 'no_stream' });
      await store.append(`${prefix}video-1`, [newEvent()], { expectedRevision: 'no_stream' });
      await store.append(`${prefix}account-2`, [newEvent()], { expectedRevision: 'no_stream' });
      await store.append(`${prefix}key-2`, newEvents(3), { expectedRevision: 'no_stream' });
      const collector = collect(store, { streamPrefixes: [`${prefix}account-`, `${prefix}video-`] });
      try {
        await collector.subscription.caughtUp();
        expect(collector.events.map((event) => event.streamId)).to.deep.equal([
          `${prefix}account-1`,
          `${prefix}account-1`,
          `${prefix}video-1`,
          `${prefix}account-2`,
        ]);
      } finally {
        await collector.subscription.stop();
      }
    });

    it('with a filter, reports how far it read past other streams, in order with delivery, and resumes from there', async () => {
      const { store } = current();
      const prefix = streamPrefix();
      const wanted = `${prefix}key-`;
      await store.append(`${wanted}1`, [newEvent()], { expectedRevision: 'no_stream' });
      await store.append(`${prefix}account-1`, newEvents(3), { expectedRevision: 'no_stream' });
      // What the reader saw, in the order it saw it: delivered events and reported positions.
      const seen: Array<{ readonly event: RecordedEvent } | { readonly progress: GlobalPosition }> = [];
      const lastProgress = () => seen.flatMap((entry) => ('progress' in entry ? [entry.progress] : [])).at(-1);
      /** Our events after a position, read back from the log. */
      const oursAfter = async (position: GlobalPosition) => (await store.readAll({ from: position })).filter((event) => event.streamId.startsWith(prefix));
      const collector = collect(store, { streamPrefixes: [wanted], onProgress: (progress) => seen.push({ progress }) }, (event) => {
        seen.push({ event });
      });
      try {
        // It walks past the three account events after the key event it delivers.
        await eventually(async () => expect(lastProgress() && (await oursAfter(lastProgress()!))).to.deep.equal([]));
        await store.append(`${wanted}2`, [newEvent()], { expectedRevision: 'no_stream' });
        await store.append(`${prefix}account-1`, newEvents(2), { expectedRevision: 2n });
        await eventually(async () => {
          expect(collector.events.map((event) => event.streamId)).to.deep.equal([`${wanted}1`, `${wanted}2`]);
          expect(await oursAfter(lastProgress()!)).to.deep.equal([]);
        });
        // Every event delivered before a reported position is at or before it; every one delivered after it is after it.
        for (const [index, entry] of seen.entries()) {
          if (!('progress' in entry)) continue;
          const after = new Set((await oursAfter(entry.progress)).map((event) => event.id));
          const delivered = seen.flatMap((other, at) => ('event' in other ? [{ id: other.event.id, before: at < index }] : []));
          expect(delivered.map(({ id }) => after.has(id)), `progress #${index}`).to.deep.equal(delivered.map(({ before }) => !before));
        }
      } finally {
        await collector.subscription.stop();
      }
      // Resumed from the last position reported, a reader gets only what comes after it.
      const resumed = collect(store, { from: lastProgress()!, streamPrefixes: [wanted], onProgress: () => {} });
      try {
        await resumed.subscription.caughtUp();
        await store.append(`${prefix}account-1`, [newEvent()], { expectedRevision: 4n });
        await store.append(`${wanted}3`, [newEvent()], { expectedRevision: 'no_stream' });
        await eventually(() => expect(resumed.events.map((event) => event.streamId)).to.deep.equal([`${wanted}3`]));
      } finally {
        await resumed.subscription.stop();
      }
    });

    it('stops at the first handler error and reports it, delivering nothing after it', async () => {
      const { store } = current();
      const prefix = streamPrefix();
      await store.append(`${prefix}a`, newEvents(4), { expectedRevision: 'no_stream' });
      const failure = new Error('projection bug');
      const collector = collect(store, { streamPrefixes: [prefix] }, (event) => {
        if (event.revision === 1n) throw failure;
      });
      await eventually(() => expect(collector.errors).to.deep.equal([failure]));
      await sleep(100);
      expect(collector.events.map((event) => event.revision)).to.deep.equal([0n]);
      const caughtUp = await collector.subscription.caughtUp().then(
        () => 'resolved',
        (error: unknown) => error,
      );
      expect(caughtUp).to.equal(failure);
      await collector.subscription.stop();
    });

    it('delivers nothing after stop', async () => {
      const { store } = current();
      const prefix = streamPrefix();
      const collector = collect(store, { streamPrefixes: [prefix] });
      await collector.subscription.caughtUp();
      await collector.subscription.stop();
      await store.append(`${prefix}a`, newEvents(2), { expectedRevision: 'no_stream' });
      await sleep(400);
      expect(collector.events).to.deep.equal([]);
    });

    const lateCommit = lateCommitSkipReason ? it.skip : it;
    lateCommit(
      `never delivers an event before one that commits late${lateCommitSkipReason ? ` (not applicable: ${lateCommitSkipReason})` : ''}`,
      async () => {
        const { store, holdAppendOpen } = current();
        if (!holdAppendOpen) throw new Error('this adapter needs holdAppendOpen for the late-commit case');
        const prefix = streamPrefix();
        const collector = collect(store, { from: await store.headPosition(), streamPrefixes: [prefix] });
        let slow: HeldAppend | undefined;
        try {
          await collector.subscription.caughtUp();
          // The slower transaction takes its transaction id (and sequence numbers) first, then holds.
          slow = await holdAppendOpen(`${prefix}slow`, newEvents(2), 'no_stream');
          const fast = await store.append(`${prefix}fast`, [newEvent()], { expectedRevision: 'no_stream' });
          // Long enough for a notification and at least one poll (250 ms) to have come and gone.
          await sleep(600);
          expect(collector.events, 'the later transaction must wait for the earlier one').to.deep.equal([]);
          expect(await readAllWithPrefix(store, prefix)).to.deep.equal([]);
          // The head is not past events that can still commit before it: a reader starting there sees them.
          const headWhileHeld = await store.headPosition();
          const committing = slow;
          slow = undefined;
          await committing.commit();
          await eventually(() => expect(collector.events).to.have.length(3));
          expect(collector.events.map((event) => event.streamId)).to.deep.equal([`${prefix}slow`, `${prefix}slow`, `${prefix}fast`]);
          expect(collector.events.at(-1)!.position).to.equal(fast.position);
          expect((await readAllWithPrefix(store, prefix)).map(comparable)).to.deep.equal(collector.events.map(comparable));
          const fromHead = (await store.readAll({ from: headWhileHeld })).filter((event) => event.streamId.startsWith(prefix));
          expect(fromHead.map(comparable)).to.deep.equal(collector.events.map(comparable));
        } finally {
          await slow?.rollback();
          await collector.subscription.stop();
        }
      },
    );
  });
}
