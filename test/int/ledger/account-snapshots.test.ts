import { expect } from 'chai';
import { pino } from 'pino';
import { AccountService } from '../../../src/ledger/account-service.js';
import { AccountSnapshotStore, type AccountSnapshot } from '../../../src/ledger/account-snapshot.js';
import { parseUsd } from '../../../src/billing/money.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import { migrateToLatest, openPostgres, type Database } from '../../../src/db/database.js';
import { systemClock } from '../../../src/clock.js';
import type { Logger } from '../../../src/logger.js';
import { createScratchDatabase } from '../../support/databases.js';
import { eventually } from '../../support/eventually.js';

/**
 * The real snapshot table, observed from outside: this store counts loads and saves, keeps the promise of
 * each save so a test can wait for it, and can be told to fail (as a database that is briefly unreachable
 * would). Everything else is the real Postgres store.
 */
class ObservedSnapshotStore extends AccountSnapshotStore {
  loads = 0;
  readonly saves: Array<{ orgId: string; revision: bigint; done: Promise<void> }> = [];
  failNextLoad: Error | undefined;
  failSaves: Error | undefined;

  override async load(orgId: string): Promise<AccountSnapshot | undefined> {
    this.loads++;
    const failure = this.failNextLoad;
    this.failNextLoad = undefined;
    if (failure) throw failure;
    return super.load(orgId);
  }

  override save(orgId: string, snapshot: AccountSnapshot): Promise<void> {
    const done = this.failSaves ? Promise.reject(this.failSaves) : super.save(orgId, snapshot);
    this.saves.push({ orgId, revision: snapshot.revision, done: done.catch(() => undefined) });
    return done;
  }
}

/** Snapshots are written right after a batch, off the request path: one turn later the write has started. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('account snapshots on Postgres', function () {
  this.timeout(60_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let database: Database;
  let store: PostgresEventStore;

  beforeEach(async () => {
    scratch = await createScratchDatabase('ledger');
    database = await openPostgres({ url: scratch.url });
    await migrateToLatest(database);
    store = new PostgresEventStore(database);
  });
  afterEach(async () => {
    await store.close();
    await database.close();
    await scratch.drop();
  });

  const service = (snapshots: AccountSnapshotStore, options: { snapshotEvery?: number; logger?: Logger } = {}) =>
    new AccountService({ store, snapshots, clock: systemClock, ...options });

  it('a top-up retried with the same Idempotency-Key after the account is restored from its snapshot credits once', async () => {
    const snapshots = new AccountSnapshotStore(database.kysely);
    const first = service(snapshots);
    await first.execute('org_topup', { type: 'AddCredits', amount: parseUsd('2'), idempotencyKey: 'topup-7' }, 'admin:ops');
    await first.saveSnapshot('org_topup');
    // The top-up is revision 0 and nothing follows it: a new instance knows of it only through the snapshot.
    expect((await snapshots.load('org_topup'))?.revision).to.equal(0n);

    const restored = service(snapshots);
    const retry = await restored.execute('org_topup', { type: 'AddCredits', amount: parseUsd('2'), idempotencyKey: 'topup-7' }, 'admin:ops');
    expect(retry.decision).to.deep.equal({ events: [] });
    // 2 USD once, not 4 USD
    expect(await restored.balance('org_topup')).to.deep.equal({ balance: 2_000_000_000n, reserved: 0n, available: 2_000_000_000n });
    expect(await store.readStream('account-org_topup')).to.have.length(1);
  });

  it('writes a snapshot only once an account has gathered snapshotEvery events', async () => {
    const snapshots = new ObservedSnapshotStore(database.kysely);
    const accounts = service(snapshots, { snapshotEvery: 3 });
    for (const usd of ['1', '2']) {
      await accounts.execute('org_few', { type: 'AddCredits', amount: parseUsd(usd) }, 'admin:ops');
      await nextTurn();
    }
    expect(snapshots.saves, 'two events are fewer than three').to.have.length(0);

    await accounts.execute('org_few', { type: 'AddCredits', amount: parseUsd('3') }, 'admin:ops');
    await nextTurn();
    expect(snapshots.saves.map(({ orgId, revision }) => ({ orgId, revision }))).to.deep.equal([{ orgId: 'org_few', revision: 2n }]);
    await snapshots.saves[0]!.done;
    const saved = await new AccountSnapshotStore(database.kysely).load('org_few');
    // 1 + 2 + 3 = 6 USD
    expect({ revision: saved?.revision, credits: saved?.state.credits }).to.deep.equal({ revision: 2n, credits: 6_000_000_000n });
  });

  it('a snapshot that cannot be written is logged and the top-up still succeeds', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const snapshots = new ObservedSnapshotStore(database.kysely);
    snapshots.failSaves = new Error('no space left on device');
    const accounts = service(snapshots, { snapshotEvery: 1, logger });

    const outcome = await accounts.execute('org_full', { type: 'AddCredits', amount: parseUsd('4') }, 'admin:ops');
    expect(outcome.balance).to.equal(4_000_000_000n);
    await eventually(async () => expect(lines).to.have.length(1));
    expect(lines[0]).to.deep.include({ level: 40, orgId: 'org_full', msg: 'account snapshot failed' });
    expect(lines[0]!.err).to.deep.include({ message: 'no space left on device' });
    // The stream stays the truth: the top-up is there, only the snapshot is missing.
    expect(await new AccountSnapshotStore(database.kysely).load('org_full')).to.equal(undefined);
    expect(await service(new AccountSnapshotStore(database.kysely)).balance('org_full')).to.include({ balance: 4_000_000_000n });
  });

  it('after evictAll the next call loads the account again from its snapshot and the tail', async () => {
    const snapshots = new ObservedSnapshotStore(database.kysely);
    const accounts = service(snapshots);
    await accounts.execute('org_evict', { type: 'AddCredits', amount: parseUsd('1') }, 'admin:ops');
    await accounts.balance('org_evict');
    expect(snapshots.loads, 'a cached account is not loaded twice').to.equal(1);

    accounts.evictAll();
    expect(await accounts.balance('org_evict')).to.deep.equal({ balance: 1_000_000_000n, reserved: 0n, available: 1_000_000_000n });
    expect(snapshots.loads).to.equal(2);
  });

  it('an account whose load failed is loaded again on the next call, not failed from memory', async () => {
    const snapshots = new ObservedSnapshotStore(database.kysely);
    const accounts = service(snapshots);
    snapshots.failNextLoad = new Error('connection terminated unexpectedly');
    let failure: unknown;
    await accounts.execute('org_flaky', { type: 'AddCredits', amount: parseUsd('3') }, 'admin:ops').catch((error: unknown) => (failure = error));
    expect((failure as Error | undefined)?.message).to.equal('connection terminated unexpectedly');

    const outcome = await accounts.execute('org_flaky', { type: 'AddCredits', amount: parseUsd('3') }, 'admin:ops');
    // only the second top-up went through: 3 USD
    expect(outcome.balance).to.equal(3_000_000_000n);
    expect(snapshots.loads).to.equal(2);
  });
});
