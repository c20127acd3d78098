import { expect } from 'chai';
import { createServer } from 'node:net';
import { sql } from 'kysely';
import { systemClock } from '../../../src/clock.js';
import { migrateToLatest, openPostgres, type Database } from '../../../src/db/database.js';
import type { AppendResult, EventToAppend, ExpectedRevision, LockedStream, ReadStreamOptions, RecordedEvent } from '../../../src/eventstore/event-store.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import type { AccountCommand } from '../../../src/ledger/account-decider.js';
import { AccountService } from '../../../src/ledger/account-service.js';
import { AccountSnapshotStore } from '../../../src/ledger/account-snapshot.js';
import { OwnedAccounts, type AccountCommandRoute } from '../../../src/ledger/owners/owned-accounts.js';
import { createUsage } from '../../../src/billing/usage.js';
import { createScratchDatabase } from '../../support/databases.js';
import { eventually } from '../../support/eventually.js';
import { replayAccounts } from '../../support/ledger-audit.js';

/** The real Postgres store, counting what one instance asks of the account streams. */
class CountingStore extends PostgresEventStore {
  appends = 0;
  reads = 0;
  override append(streamId: string, events: readonly EventToAppend[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    this.appends++;
    return super.append(streamId, events, options);
  }
  override withStreamLock<T>(streamId: string, work: (stream: LockedStream) => Promise<T>): Promise<T> {
    this.appends++;
    return super.withStreamLock(streamId, work);
  }
  override readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    this.reads++;
    return super.readStream(streamId, options);
  }
}

const SECRET = 'owned-accounts-test-secret';
const ORG = 'org_owned';
// 0.02 USD = 20,000,000 n$
const TWO_CENTS = 20_000_000n;

const credit = (amount: bigint): AccountCommand => ({ type: 'AddCredits', amount });
const reserve = (reservationId: string, amount = TWO_CENTS): AccountCommand => ({
  type: 'ReserveFunds',
  reservationId,
  endpoint: 'chat',
  owner: { keyId: 'key_owned', employeeId: null, teamId: null, spaceId: null },
  model: 'openai/gpt-4o-mini',
  category: 'text',
  amount,
  price: { version: 1, serviceTier: null }, deadline: new Date(Date.now() + 600_000),
  limits: {},
  accessRevisions: {},
});
const settle = (reservationId: string, cost: bigint): AccountCommand => ({ type: 'SettleReservation', reservationId, cost, usage: createUsage({ outputTokens: 1 }) });

/** One gateway instance's accounts: its own store, account service and account link. */
interface Instance {
  readonly store: CountingStore;
  readonly accounts: OwnedAccounts;
  /** What became of its forwardable commands (gateway_account_commands_total). */
  readonly routes: Partial<Record<AccountCommandRoute, number>>;
}

describe('an owner per account across instances (real Postgres, real TCP)', function () {
  this.timeout(60_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let database: Database;
  let started: Instance[];

  beforeEach(async () => {
    scratch = await createScratchDatabase('owners');
    database = await openPostgres({ url: scratch.url });
    await migrateToLatest(database);
    started = [];
  });
  afterEach(async () => {
    for (const instance of started) {
      await instance.accounts.close();
      await instance.store.close();
    }
    await database.close();
    await scratch.drop();
  });

  async function instance(options: { secret?: string; leaseMs?: number } = {}): Promise<Instance> {
    const store = new CountingStore(database);
    const local = new AccountService({ store, snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock });
    const routes: Partial<Record<AccountCommandRoute, number>> = {};
    const accounts = await OwnedAccounts.start({
      local,
      observe: (route) => (routes[route] = (routes[route] ?? 0) + 1),
      db: database.kysely,
      host: '127.0.0.1',
      port: 0,
      advertisedHost: '127.0.0.1',
      secret: options.secret ?? SECRET,
      ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    });
    const running = { store, accounts, routes };
    started.push(running);
    return running;
  }

  const leaseOf = async (orgId: string) =>
    (await sql<{ instance_id: string; address: string }>`select instance_id, address from account_owners where org_id = ${orgId}`.execute(database.kysely)).rows[0];

  it('the first instance to serve an organization decides all its commands; the other never reads or appends its stream', async () => {
    const [first, second] = [await instance(), await instance()];
    // 1 USD of credit, then one reserve through the first: it takes the lease
    await first.accounts.execute(ORG, credit(1_000_000_000n), 'admin:test');
    expect('events' in (await first.accounts.execute(ORG, reserve('gen-first'), 'gen-first')).decision).to.equal(true);
    expect((await leaseOf(ORG))?.address).to.equal(first.accounts.address);

    // 100 reserves of 0.02 USD at once, every other one through the second instance: 1 − 0.02 left room for 49
    const ids = Array.from({ length: 100 }, (_, index) => `gen-${index}`);
    const outcomes = await Promise.all(ids.map((id, index) => (index % 2 === 0 ? first : second).accounts.execute(ORG, reserve(id), id)));
    const reserved = ids.filter((_, index) => 'events' in outcomes[index]!.decision);
    expect(reserved).to.have.length(49);
    const refusals = outcomes.flatMap(({ decision }) => ('rejection' in decision ? [decision.rejection.code] : []));
    expect(refusals).to.deep.equal(Array.from({ length: 51 }, () => 'insufficient_funds'));

    // each settled at 0.01 USD through the instance that did not reserve it
    await Promise.all(
      ['gen-first', ...reserved].map((id, index) => (index % 2 === 0 ? second : first).accounts.execute(ORG, settle(id, 10_000_000n), id)),
    );
    expect([second.store.appends, second.store.reads], 'the second instance touched the account stream').to.deep.equal([0, 0]);
    // 101 reserves and 50 settles: the second sent 50 + 25 of them, the first decided 51 + 25 as owner
    expect(second.routes).to.deep.equal({ forwarded: 75 });
    expect(first.routes).to.deep.equal({ owner: 76, for_another: 75 });

    // 50 requests settled at 0.01 USD: 1 − 0.50 = 0.50 USD left, nothing reserved
    const account = (await replayAccounts(first.store)).get(ORG)!;
    expect([account.credits, account.settled, account.balance, account.reserved]).to.deep.equal([1_000_000_000n, 500_000_000n, 500_000_000n, 0n]);
    expect(await second.accounts.balance(ORG)).to.deep.equal({ balance: 500_000_000n, reserved: 0n, available: 500_000_000n });
  });

  it('a command whose owner cannot be reached runs where it was issued, and stays exact', async () => {
    const port = await closedPort();
    const here = await instance();
    await here.accounts.execute(ORG, credit(30_000_000n), 'admin:test');
    await sql`insert into account_owners (org_id, instance_id, address, expires_at)
      values (${ORG}, 'an-instance-gone', ${`127.0.0.1:${port}`}, now() + interval '1 minute')`.execute(database.kysely);

    // 0.03 USD of credit holds one reserve of 0.02 USD, not two
    const outcomes = await Promise.all(['gen-a', 'gen-b'].map((id) => here.accounts.execute(ORG, reserve(id), id)));
    expect(outcomes.map(({ decision }) => ('events' in decision ? 'reserved' : 'rejection' in decision ? decision.rejection.code : 'stale'))).to.have.members([
      'reserved',
      'insufficient_funds',
    ]);
    expect((await leaseOf(ORG))?.instance_id, 'the lease is left to lapse').to.equal('an-instance-gone');
    expect(here.routes).to.deep.equal({ here: 2 });
  });

  it('a connection without the right secret is dropped; its commands run where they were issued', async () => {
    const owner = await instance();
    const stranger = await instance({ secret: 'not-the-account-link-secret' });
    await owner.accounts.execute(ORG, credit(1_000_000_000n), 'admin:test');
    await owner.accounts.execute(ORG, reserve('gen-owner'), 'gen-owner');
    const appendsBefore = owner.store.appends;

    expect('events' in (await stranger.accounts.execute(ORG, reserve('gen-stranger'), 'gen-stranger')).decision).to.equal(true);
    expect(stranger.store.appends, 'the stranger appended the reserve itself').to.equal(1);
    expect(owner.store.appends).to.equal(appendsBefore);
    // 1 − 2 × 0.02 = 0.96 USD available
    expect(await owner.accounts.balance(ORG)).to.deep.equal({ balance: 1_000_000_000n, reserved: 40_000_000n, available: 960_000_000n });
  });

  it('an owner that shuts down gives its accounts up, and the next instance takes them over', async () => {
    const [first, second] = [await instance(), await instance()];
    await first.accounts.execute(ORG, credit(1_000_000_000n), 'admin:test');
    await first.accounts.execute(ORG, reserve('gen-before'), 'gen-before');
    await second.accounts.execute(ORG, reserve('gen-forwarded'), 'gen-forwarded');
    expect(second.store.appends).to.equal(0);

    await first.accounts.close();
    started.splice(started.indexOf(first), 1);
    await first.store.close();
    expect(await leaseOf(ORG), 'the lease is released at shutdown').to.equal(undefined);

    // the first commands after the shutdown may run here before the lease is claimed; all of them count once
    let next = 0;
    await eventually(async () => {
      const id = `gen-after${next++}`;
      expect('events' in (await second.accounts.execute(ORG, reserve(id), id)).decision).to.equal(true);
      expect((await leaseOf(ORG))?.address).to.equal(second.accounts.address);
    });
    const account = (await replayAccounts(second.store)).get(ORG)!;
    // every reserve of 0.02 USD still open: gen-before, gen-forwarded and the `next` ones after the shutdown
    expect(account.reserved).to.equal(TWO_CENTS * BigInt(2 + next));
  });

  it('a lease taken over by another instance moves the commands there, from both instances', async () => {
    const [first, second] = [await instance({ leaseMs: 600 }), await instance({ leaseMs: 600 })];
    await first.accounts.execute(ORG, credit(1_000_000_000n), 'admin:test');
    await first.accounts.execute(ORG, reserve('gen-0'), 'gen-0');
    await second.accounts.execute(ORG, reserve('gen-1'), 'gen-1');

    // as if the first had paused past its lease and the second had claimed the account meanwhile
    await sql`update account_owners set instance_id = ${second.accounts.instanceId}, address = ${second.accounts.address}, expires_at = now() + interval '1 minute'
      where org_id = ${ORG}`.execute(database.kysely);
    let next = 2;
    await eventually(async () => {
      const appendsBefore = first.store.appends;
      const id = `gen-${next++}`;
      expect('events' in (await first.accounts.execute(ORG, reserve(id), id)).decision).to.equal(true);
      expect(first.store.appends, 'the first still appends itself').to.equal(appendsBefore);
    });
    // and the second, which forwarded to the first until now, is told the first no longer owns the account
    const firstAppends = first.store.appends;
    const id = `gen-${next++}`;
    expect('events' in (await second.accounts.execute(ORG, reserve(id), id)).decision).to.equal(true);
    expect(first.store.appends).to.equal(firstAppends);

    const account = (await replayAccounts(second.store)).get(ORG)!;
    expect([account.reserved, account.open.size]).to.deep.equal([TWO_CENTS * BigInt(next), next]);
  });
});

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}
