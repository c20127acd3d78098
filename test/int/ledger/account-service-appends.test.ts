import { expect } from 'chai';
import { AccountService, CONTENDED_BATCHES } from '../../../src/ledger/account-service.js';
import { AccountSnapshotStore } from '../../../src/ledger/account-snapshot.js';
import type { AccountCommand } from '../../../src/ledger/account-decider.js';
import { parseUsd } from '../../../src/billing/money.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type AppendSettled,
  type EventToAppend,
  type ExpectedRevision,
  type LockedStream,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamAppend,
} from '../../../src/eventstore/event-store.js';
import { migrateToLatest, openPostgres, type Database } from '../../../src/db/database.js';
import { systemClock } from '../../../src/clock.js';
import { createScratchDatabase } from '../../support/databases.js';

/**
 * The real Postgres store with hooks around it: it records every append it is asked for, and a test can
 * hold the next append or read at a gate (to line up a race deterministically), run something just before
 * an append (another instance that wins the race), or fail an append as a broken connection would.
 */
class HookedStore extends PostgresEventStore {
  /** Optimistic appends (not those made under the stream lock). */
  readonly appends: Array<{ events: number; expectedRevision: ExpectedRevision }> = [];
  lockedBatches = 0;
  /** Appends to several streams in one write: how many streams each carried. */
  readonly groupWrites: number[] = [];
  beforeAppend: (() => Promise<void>) | undefined;
  holdNextAppend: Gate | undefined;
  holdNextRead: Gate | undefined;

  override async append(streamId: string, events: readonly EventToAppend[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    this.appends.push({ events: events.length, expectedRevision: options.expectedRevision });
    const gate = this.holdNextAppend;
    this.holdNextAppend = undefined;
    if (gate) await gate.pass();
    await this.beforeAppend?.();
    return super.append(streamId, events, options);
  }

  override async appendMany(appends: readonly StreamAppend[]): Promise<AppendSettled[]> {
    this.groupWrites.push(appends.length);
    for (const append of appends) this.appends.push({ events: append.events.length, expectedRevision: append.expectedRevision });
    return super.appendMany(appends);
  }

  override async withStreamLock<T>(streamId: string, work: (stream: LockedStream) => Promise<T>): Promise<T> {
    this.lockedBatches++;
    return super.withStreamLock(streamId, work);
  }

  override async readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    const gate = this.holdNextRead;
    this.holdNextRead = undefined;
    if (gate) await gate.pass();
    return super.readStream(streamId, options);
  }
}

/** `reached` resolves when a caller arrives at the gate; the caller goes on once the test calls `open`. */
class Gate {
  private arrive!: () => void;
  open!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.arrive = resolve));
  private readonly opened = new Promise<void>((resolve) => (this.open = resolve));
  pass(): Promise<void> {
    this.arrive();
    return this.opened;
  }
}

/** Lets every callback already scheduled with setImmediate (a batch's flush) run. */
const turns = async (count: number) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

const credit = (usd: string): AccountCommand => ({ type: 'AddCredits', amount: parseUsd(usd) });

describe('account service appends on Postgres', function () {
  this.timeout(60_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let database: Database;
  let store: HookedStore;
  let plainStore: PostgresEventStore;

  beforeEach(async () => {
    scratch = await createScratchDatabase('ledger');
    database = await openPostgres({ url: scratch.url });
    await migrateToLatest(database);
    store = new HookedStore(database);
    plainStore = new PostgresEventStore(database);
  });
  afterEach(async () => {
    await store.close();
    await plainStore.close();
    await database.close();
    await scratch.drop();
  });

  const service = (options: { maxAttempts?: number } = {}) =>
    new AccountService({ store, snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock, ...options });

  /** The same store seen without its stream lock, as a store that has none (EventStoreDB) is. */
  const lockless = (options: { maxAttempts?: number } = {}) => {
    const withoutLock = new Proxy(store, { get: (target, property) => (property === 'withStreamLock' ? undefined : Reflect.get(target, property, target)) });
    return new AccountService({ store: withoutLock, snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock, ...options });
  };

  /** Another gateway instance on the same database, which wins the race for the stream `times` times. */
  const rivalWins = (orgId: string, times: number) => {
    const rival = new AccountService({ store: plainStore, snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock });
    let left = times;
    store.beforeAppend = async () => {
      if (left-- > 0) await rival.execute(orgId, credit('1'), 'admin:rival');
    };
  };

  it('commands that arrive while an append is in flight wait for it and then go out together in one append', async () => {
    const accounts = service();
    await accounts.balance('org_batch');
    const gate = new Gate();
    store.holdNextAppend = gate;
    // Three separate admin requests (a top-up without an Idempotency-Key is identified by its cause and time).
    const first = accounts.execute('org_batch', credit('1'), 'admin:ops-1');
    await gate.reached;

    const second = accounts.execute('org_batch', credit('2'), 'admin:ops-2');
    const third = accounts.execute('org_batch', credit('3'), 'admin:ops-3');
    await turns(3);
    expect(store.appends, 'nothing else is appended while the first append is in flight').to.have.length(1);

    gate.open();
    const outcomes = await Promise.all([first, second, third]);
    // running balances: 1, 1 + 2 = 3, 3 + 3 = 6 USD
    expect(outcomes.map((outcome) => outcome.balance)).to.deep.equal([1_000_000_000n, 3_000_000_000n, 6_000_000_000n]);
    expect(store.appends).to.deep.equal([
      { events: 1, expectedRevision: 'no_stream' },
      { events: 2, expectedRevision: 0n },
    ]);
  });

  it('an event that committed while the tail was being read is counted once', async () => {
    const accounts = service();
    await accounts.execute('org_race', credit('1'), 'admin:ops');
    // The balance read asks for the events after revision 0 and is held; meanwhile this instance appends
    // revision 1 and takes it into its state. The held read then returns revision 1, already applied.
    const gate = new Gate();
    store.holdNextRead = gate;
    const balance = accounts.balance('org_race');
    await gate.reached;
    await accounts.execute('org_race', credit('2'), 'admin:ops');
    gate.open();

    // 1 + 2 = 3 USD, not 1 + 2 + 2
    expect(await balance).to.deep.equal({ balance: 3_000_000_000n, reserved: 0n, available: 3_000_000_000n });
    expect(await accounts.balance('org_race')).to.deep.equal({ balance: 3_000_000_000n, reserved: 0n, available: 3_000_000_000n });
  });

  it('a batch that loses the race to another instance is decided again on its appends, under the stream lock', async () => {
    const accounts = service({ maxAttempts: 3 });
    await accounts.balance('org_contended');
    // the rival wins every optimistic append; the retry under the lock is not one (it appends inside the lock)
    rivalWins('org_contended', 1_000);
    const outcome = await accounts.execute('org_contended', credit('5'), 'admin:ops');
    // the rival's 1 USD, then ours: 6 USD
    expect(outcome.balance).to.equal(6_000_000_000n);
    expect(store.appends.map((append) => append.expectedRevision), 'one optimistic attempt').to.deep.equal(['no_stream']);
    const events = await plainStore.readStream('account-org_contended');
    expect(events.map((event) => [event.revision, event.metadata.causedBy])).to.deep.equal([
      [0n, 'admin:rival'],
      [1n, 'admin:ops'],
    ]);
  });

  it('after a lost race the next batches take the stream lock at once, until no one else has appended for CONTENDED_BATCHES of them', async () => {
    expect(CONTENDED_BATCHES, 'the counts below are worked out for 32').to.equal(32);
    const accounts = service();
    const rival = new AccountService({ store: plainStore, snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock });
    await accounts.balance('org_shared');
    rivalWins('org_shared', 1);
    // optimistic, lost to the rival, decided again under the lock
    await accounts.execute('org_shared', credit('1'), 'admin:ops-0');
    expect([store.appends.length, store.lockedBatches]).to.deep.equal([1, 1]);

    // The rival appends again: the first batch after it finds its event under the lock and starts the count
    // again; then 32 locked batches find nothing of anyone else's, and the batch after them is optimistic.
    await rival.execute('org_shared', credit('1'), 'admin:rival-2');
    for (let i = 1; i <= 34; i++) await accounts.execute('org_shared', credit('1'), `admin:ops-${i}`);
    // 1 + 33 locked batches; the first attempt and batch 34 optimistic
    expect([store.appends.length, store.lockedBatches]).to.deep.equal([2, 34]);
    // the rival's 2 USD and ours 1 + 34 USD
    expect((await accounts.balance('org_shared')).balance).to.equal(37_000_000_000n);
  });

  it('without a stream lock, a batch that loses the race learns what the other appended and is decided again', async () => {
    const accounts = lockless({ maxAttempts: 3 });
    await accounts.balance('org_contended');
    rivalWins('org_contended', 2);
    const outcome = await accounts.execute('org_contended', credit('5'), 'admin:ops');
    // the rival's 1 + 1 USD, then ours: 7 USD
    expect(outcome.balance).to.equal(7_000_000_000n);
    expect(store.appends.map((append) => append.expectedRevision)).to.deep.equal(['no_stream', 0n, 1n]);
  });

  it('without a stream lock, gives up with the conflict after maxAttempts lost races, having written nothing of its own', async () => {
    const accounts = lockless({ maxAttempts: 3 });
    await accounts.balance('org_hot');
    // The rival wins three times; a fourth attempt would go through, but three is the limit.
    rivalWins('org_hot', 3);
    let failure: unknown;
    await accounts.execute('org_hot', credit('5'), 'admin:ops').catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(WrongExpectedRevisionError);
    expect(store.appends).to.have.length(3);
    // only the rival's three top-ups of 1 USD
    expect(await accounts.balance('org_hot')).to.deep.equal({ balance: 3_000_000_000n, reserved: 0n, available: 3_000_000_000n });
  });

  it('an append that fails for another reason than a conflict is reported at once, not retried', async () => {
    const accounts = service();
    await accounts.balance('org_broken');
    let failed = false;
    store.beforeAppend = async () => {
      if (failed) return;
      failed = true;
      throw new Error('Connection terminated unexpectedly');
    };
    let failure: unknown;
    await accounts.execute('org_broken', credit('5'), 'admin:ops').catch((error: unknown) => (failure = error));
    expect((failure as Error | undefined)?.message).to.equal('Connection terminated unexpectedly');
    expect(store.appends).to.have.length(1);
    expect(await accounts.balance('org_broken')).to.deep.equal({ balance: 0n, reserved: 0n, available: 0n });
  });

  it('fences of two access streams are two events, and the same fence again is none', async () => {
    const accounts = service();
    const fence = (stream: string, revision: bigint): AccountCommand => ({ type: 'FenceAccessRules', stream, revision });
    const first = await accounts.execute('org_fence', fence('key-k1', 3n), 'admin:ops');
    const second = await accounts.execute('org_fence', fence('key-k2', 3n), 'admin:ops');
    const again = await accounts.execute('org_fence', fence('key-k1', 3n), 'admin:ops');
    expect([first, second, again].map((outcome) => ('events' in outcome.decision ? outcome.decision.events.length : 'refused'))).to.deep.equal([1, 1, 0]);
    const recorded = await plainStore.readStream('account-org_fence');
    expect(recorded.map((event) => event.data)).to.deep.equal([
      { stream: 'key-k1', revision: '3' },
      { stream: 'key-k2', revision: '3' },
    ]);
    expect(new Set(recorded.map((event) => event.id)).size).to.equal(2);
  });

  it('the batches of different accounts that are ready together go out in one write and one commit, each exact', async () => {
    const accounts = service();
    const orgs = Array.from({ length: 30 }, (_, index) => `org_many_${index}`);
    await Promise.all(orgs.map((orgId) => accounts.balance(orgId)));
    const writesBefore = store.groupWrites.length;
    // 30 organizations, each topped up in the same turn: 30 appends, each its own stream
    const outcomes = await Promise.all(orgs.map((orgId, index) => accounts.execute(orgId, credit(String(index + 1)), `admin:ops-${index}`)));
    expect(outcomes.map((outcome) => outcome.balance)).to.deep.equal(orgs.map((_, index) => BigInt(index + 1) * 1_000_000_000n));
    const groups = store.groupWrites.slice(writesBefore);
    // the first append finds no write in flight and goes out at once, alone; the 29 that come while it is
    // in flight go out together
    expect(groups.reduce((sum, size) => sum + size, 0), 'appends in group writes').to.equal(29);
    expect(groups.length, `writes: ${groups.join(', ')}`).to.be.at.most(2);
    // each stream holds its own credit, read back from the log
    for (const [index, orgId] of orgs.entries()) {
      const events = await plainStore.readStream(`account-${orgId}`);
      expect(events.map((recorded) => recorded.type)).to.deep.equal(['CreditsAdded']);
      expect((events[0]!.data as { amount: string }).amount).to.equal(String(BigInt(index + 1) * 1_000_000_000n));
    }
  });

  it('a conflict in a group write costs only that account a second attempt', async () => {
    const accounts = service();
    await Promise.all(['org_group_a', 'org_group_b', 'org_group_c'].map((orgId) => accounts.balance(orgId)));
    // another instance tops up org_group_b behind this one's back: this instance's revision is now stale
    const rival = new AccountService({ store: plainStore, snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock });
    await rival.execute('org_group_b', credit('5'), 'admin:rival');
    // a third account's append held in flight, so that the next two wait for company and go out together
    const held = new Gate();
    store.holdNextAppend = held;
    const third = accounts.execute('org_group_c', credit('3'), 'admin:ops-c');
    await held.reached;
    const [a, b] = await Promise.all([accounts.execute('org_group_a', credit('1'), 'admin:ops-a'), accounts.execute('org_group_b', credit('2'), 'admin:ops-b')]);
    held.open();
    expect((await third).balance).to.equal(3_000_000_000n);
    // org_group_a: 1 USD; org_group_b: the rival's 5 + 2 = 7 USD, decided again on the stream's tail
    expect(a.balance).to.equal(1_000_000_000n);
    expect(b.balance).to.equal(7_000_000_000n);
    expect(store.groupWrites).to.deep.equal([2]);
    expect(store.lockedBatches, 'the lost race is decided again under the stream lock').to.equal(1);
  });

  it('in a group write each account learns its own outcome: a conflicted one is decided again, never told it committed (fails if entries are answered in another order)', async () => {
    const accounts = service();
    // six accounts, named so that the group's order (f … a) is neither their name order nor, for all of
    // them, their lock order; another instance tops up b, d and f behind this one's back
    const orgs = ['f', 'e', 'd', 'c', 'b', 'a'].map((letter) => `org_order_${letter}`);
    await Promise.all(orgs.map((orgId) => accounts.balance(orgId)));
    const rival = new AccountService({ store: plainStore, snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock });
    const contended = new Set(['org_order_f', 'org_order_d', 'org_order_b']);
    for (const orgId of contended) await rival.execute(orgId, credit('5'), 'admin:rival');
    // a seventh account's append held in flight, so that the six go out together in one group write
    const held = new Gate();
    store.holdNextAppend = held;
    const seventh = accounts.execute('org_order_g', credit('1'), 'admin:ops-g');
    await held.reached;
    const outcomes = Promise.all(orgs.map((orgId, index) => accounts.execute(orgId, credit(String(index + 1)), `admin:ops-${orgId}`)));
    await turns(2);
    held.open();
    await seventh;
    // each account's own credit of index + 1 USD, on top of the rival's 5 USD where it had one
    const expected = orgs.map((orgId, index) => BigInt(index + 1 + (contended.has(orgId) ? 5 : 0)) * 1_000_000_000n);
    expect((await outcomes).map((outcome) => outcome.balance)).to.deep.equal(expected);
    expect(store.groupWrites).to.deep.equal([6]);
    expect(store.lockedBatches, 'the three that lost the race, decided again under the stream lock').to.equal(3);
    // and the log says the same: every account's credit written once
    for (const [index, orgId] of orgs.entries()) {
      const amounts = (await plainStore.readStream(`account-${orgId}`)).map((event) => (event.data as { amount: string }).amount);
      expect(amounts, orgId).to.deep.equal([...(contended.has(orgId) ? ['5000000000'] : []), String(BigInt(index + 1) * 1_000_000_000n)]);
    }
    // A second round: the three that lost a race take the stream lock for their next batches (until
    // CONTENDED_BATCHES pass quietly); the other three go out optimistically and commit, which they could
    // not with another account's revision in memory.
    const lockedBefore = store.lockedBatches;
    await Promise.all(orgs.map((orgId) => accounts.execute(orgId, credit('1'), `admin:again-${orgId}`)));
    expect(store.lockedBatches - lockedBefore, 'no account was left with another\'s revision').to.equal(3);
  });
});
