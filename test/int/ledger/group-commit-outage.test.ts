import { expect } from 'chai';
import { parseUsd } from '../../../src/billing/money.js';
import { systemClock } from '../../../src/clock.js';
import { migrateToLatest, openPostgres, type Database } from '../../../src/db/database.js';
import type { AppendSettled, StreamAppend } from '../../../src/eventstore/event-store.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import { AccountService } from '../../../src/ledger/account-service.js';
import { AccountSnapshotStore } from '../../../src/ledger/account-snapshot.js';
import { createScratchDatabase } from '../../support/databases.js';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.js';

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
  let scratch: { url: string; drop: () => Promise<void> };
  let direct: Database;
  let proxied: Database;
  let proxy: TcpProxy;
  let store: CountingStore;

  before(async () => {
    scratch = await createScratchDatabase('group_outage');
    const target = new URL(scratch.url);
    direct = await openPostgres({ url: scratch.url, poolSize: 2 });
    await migrateToLatest(direct);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const through = new URL(scratch.url);
    through.hostname = '127.0.0.1';
    through.port = String(proxy.port);
    proxied = await openPostgres({ url: through.toString(), poolSize: 4 });
    store = new CountingStore(proxied);
  });
  after(async () => {
    await store?.close();
    await proxied?.close();
    await direct?.close();
    await proxy?.close();
    await scratch?.drop();
  });

  it('fails every account of the write at once, writes nothing, and decides the next commands on the state before', async () => {
    const accounts = new AccountService({ store, snapshots: new AccountSnapshotStore(proxied.kysely), clock: systemClock });
    const orgs = ['org_group_down_a', 'org_group_down_b', 'org_group_down_c'];
    await Promise.all(orgs.map((orgId) => accounts.balance(orgId)));
    const port = proxy.port;
    await proxy.close();
    const failed = await Promise.allSettled(orgs.map((orgId) => accounts.execute(orgId, { type: 'AddCredits', amount: parseUsd('5') }, `admin:down-${orgId}`)));
    expect(failed.map((outcome) => outcome.status)).to.deep.equal(['rejected', 'rejected', 'rejected']);
    expect(store.groupWrites, 'the three went out in one group write').to.equal(1);

    const target = new URL(scratch.url);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432), port);
    const outcomes = await Promise.all(orgs.map((orgId) => accounts.execute(orgId, { type: 'AddCredits', amount: parseUsd('2') }, `admin:up-${orgId}`)));
    // 2 USD each: the failed 5 USD top-ups were never written nor applied
    expect(outcomes.map((outcome) => outcome.balance)).to.deep.equal([2_000_000_000n, 2_000_000_000n, 2_000_000_000n]);
    const reader = new PostgresEventStore(direct);
    try {
      for (const orgId of orgs) expect((await reader.readStream(`account-${orgId}`)).map((recorded) => (recorded.data as { amount: string }).amount)).to.deep.equal(['2000000000']);
    } finally {
      await reader.close();
    }
  });
});
