import { expect } from 'chai';
import { parseUsd } from '../../../src/billing/money.js';
import { systemClock } from '../../../src/clock.js';
import type { AppendSettled, StreamAppend } from '../../../src/eventstore/event-store.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import { AccountService } from '../../../src/ledger/account-service.js';
import { AccountSnapshotStore } from '../../../src/ledger/account-snapshot.js';
import { openProxiedDatabase, type ProxiedDatabase } from '../../support/databases.js';

/** The real store, its group writes counted. */
class CountingStore extends PostgresEventStore {
  groupWrites = 0;
  override appendMany(appends: readonly StreamAppend[]): Promise<AppendSettled[]> {
    this.groupWrites++;
    return super.appendMany(appends);
  }
}

/**
 * A group write (several accounts' batches in one commit) when Postgres cannot be reached: every account in
 * it gets the error, none is left waiting, nothing is written, and the next commands, once Postgres is
 * back, are decided on the state before the failed ones. Real Postgres behind a TCP proxy the test closes.
 */
describe('group commit across accounts while the event store is away (real Postgres behind a proxy)', function () {
  this.timeout(60_000);
  let database: ProxiedDatabase;
  let store: CountingStore;

  before(async () => {
    database = await openProxiedDatabase('group_outage');
    store = new CountingStore(database.proxied);
  });
  after(async () => {
    await store?.close();
    await database?.dispose();
  });

  it('fails every account of the write at once, writes nothing, and decides the next commands on the state before', async () => {
    const accounts = new AccountService({ store, snapshots: new AccountSnapshotStore(database.proxied.kysely), clock: systemClock });
    const orgs = ['org_group_down_a', 'org_group_down_b', 'org_group_down_c'];
    await Promise.all(orgs.map((orgId) => accounts.balance(orgId)));
    await database.cut();
    const failed = await Promise.allSettled(orgs.map((orgId) => accounts.execute(orgId, { type: 'AddCredits', amount: parseUsd('5') }, `admin:down-${orgId}`)));
    expect(failed.map((outcome) => outcome.status)).to.deep.equal(['rejected', 'rejected', 'rejected']);
    // the first found no write in flight and went out alone; the two that came meanwhile, in one group write
    expect(store.groupWrites, 'group writes').to.equal(1);

    await database.restore();
    const outcomes = await Promise.all(orgs.map((orgId) => accounts.execute(orgId, { type: 'AddCredits', amount: parseUsd('2') }, `admin:up-${orgId}`)));
    // 2 USD each: the failed 5 USD top-ups were never written nor applied
    expect(outcomes.map((outcome) => outcome.balance)).to.deep.equal([2_000_000_000n, 2_000_000_000n, 2_000_000_000n]);
    const reader = new PostgresEventStore(database.direct);
    try {
      for (const orgId of orgs) expect((await reader.readStream(`account-${orgId}`)).map((recorded) => (recorded.data as { amount: string }).amount)).to.deep.equal(['2000000000']);
    } finally {
      await reader.close();
    }
  });
});
