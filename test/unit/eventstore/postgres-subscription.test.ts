import { expect } from 'chai';
import type { GlobalPage } from '../../../src/eventstore/postgres/postgres-reads.js';
import type { PostgresPosition } from '../../../src/eventstore/postgres/postgres-position.js';
import { PostgresSubscription, type SubscriptionSource } from '../../../src/eventstore/postgres/postgres-subscription.js';

/**
 * The subscription's own bookkeeping, on a scripted source (the store behind it is covered by the
 * contract suite on real databases): here, the moments between its awaits that a real store only hits
 * by chance under load.
 */
describe('Postgres subscription bookkeeping', () => {
  const emptyPage: GlobalPage = { events: [], scanned: 0, lastScanned: undefined, horizon: 1n, pendingBeyondHorizon: false };

  it('rejects a caughtUp() whose head read was still on its way when the subscription stopped', async () => {
    let answerHead!: (head: PostgresPosition) => void;
    const source: SubscriptionSource = {
      readPage: async () => emptyPage,
      readHead: () => new Promise((resolve) => (answerHead = resolve)),
      onAppended: () => () => {},
      at: async () => {},
    };
    const subscription = new PostgresSubscription(source, { from: 'start', streamPrefixes: undefined, batchSize: 10, pollIntervalMs: 50, minReadIntervalMs: 0 }, () => {}, undefined);
    const waiting = subscription.caughtUp().then(
      () => 'resolved',
      () => 'rejected',
    );
    await subscription.stop();
    answerHead({ transactionId: 5n, sequence: 1n });
    // Before the fix the waiter joined a subscription that nobody would ever settle again: a hang.
    expect(await waiting).to.equal('rejected');
  });
});
