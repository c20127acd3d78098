import { describeAppendContract } from './contract-appends.js';
import { describeConcurrencyContract } from './contract-concurrency.js';
import { describeReadContract } from './contract-reads.js';
import { describeSubscriptionContract } from './contract-subscriptions.js';
import { eventStoreHarnesses, type EventStoreUnderTest } from './event-store-harnesses.js';

/**
 * One contract for every EventStore adapter (DESIGN.md sections 4 and 9): PGlite and Postgres always,
 * EventStoreDB when EVENTSTORE_URL points at a server. Tests share one store per adapter and write to
 * streams of their own, so they also hold on a store that other tests (or other runs) write to.
 */
for (const harness of eventStoreHarnesses()) {
  if (harness.skipReason) {
    describe.skip(`EventStore contract on ${harness.name}: ${harness.skipReason}`, () => {
      it('runs the whole contract');
    });
    continue;
  }

  describe(`EventStore contract on ${harness.name}`, function () {
    this.timeout(20_000);
    let underTest: EventStoreUnderTest | undefined;
    const current = (): EventStoreUnderTest => {
      if (!underTest) throw new Error('the store is not open');
      return underTest;
    };

    before(async () => {
      underTest = await harness.open();
    });
    after(async () => {
      await underTest?.dispose();
    });

    describeAppendContract(current);
    describeReadContract(current);
    describeConcurrencyContract(current);
    describeSubscriptionContract(current, harness.lateCommitSkipReason);
  });
}
