import { expect } from 'chai';
import { systemClock } from '../../../src/clock.js';
import { migrateToLatest, openPostgres, type Database } from '../../../src/db/database.js';
import type { AppendResult, EventToAppend, ExpectedRevision } from '../../../src/eventstore/event-store.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import type { AccountCommand } from '../../../src/ledger/account-decider.js';
import { AccountService, QUIET_BEFORE_EARLY } from '../../../src/ledger/account-service.js';
import { AccountSnapshotStore } from '../../../src/ledger/account-snapshot.js';
import { createScratchDatabase } from '../../support/databases.js';

/**
 * `executeEarly`: the account's decision is answered before its events commit, so that a request's provider
 * call can start while its reservation is written. The real Postgres store, with its next append held
 * back, run after a rival's append, or failed as a broken connection fails it.
 */
class HeldStore extends PostgresEventStore {
  beforeNextAppend: (() => Promise<void>) | undefined;
  override async append(streamId: string, events: readonly EventToAppend[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    const before = this.beforeNextAppend;
    this.beforeNextAppend = undefined;
    await before?.();
    return super.append(streamId, events, options);
  }
}

const OWNER = { keyId: 'key_early', employeeId: null, teamId: null, spaceId: null };
const reserve = (reservationId: string, amount: bigint): AccountCommand => ({
  type: 'ReserveFunds',
  reservationId,
  endpoint: 'chat',
  owner: OWNER,
  model: 'openai/gpt-4o-mini',
  category: 'text',
  amount,
  price: { version: null, serviceTier: null },
  deadline: new Date(Date.now() + 60_000),
  limits: {},
  accessRevisions: {},
});

describe('account service: a decision answered while its events commit (real Postgres)', function () {
  this.timeout(30_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let database: Database;
  let store: HeldStore;
  let accounts: AccountService;

  beforeEach(async () => {
    scratch = await createScratchDatabase('early');
    database = await openPostgres({ url: scratch.url });
    await migrateToLatest(database);
    store = new HeldStore(database);
    // told early from the first batch here; the default's wait for quiet batches has its own test
    accounts = new AccountService({ store, snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock, quietBeforeEarly: 0 });
    // 1 USD of credit
    await accounts.execute('org_early', { type: 'AddCredits', amount: 1_000_000_000n }, 'admin:test');
  });
  afterEach(async () => {
    await store.close();
    await database.close();
    await scratch.drop();
  });

  const eventsOnStream = async () => (await store.readStream('account-org_early')).map((recorded) => recorded.type);

  it('answers the reserve as decided while its append is held, and as recorded once it commits', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    store.beforeNextAppend = () => held;
    const { decided, durable } = await accounts.executeEarly('org_early', reserve('gen-early1', 400_000_000n), 'gen-early1');
    expect(decided.decision).to.have.property('events');
    // 1 USD − 0.4 USD reserved, as decided
    expect(decided.reserved).to.equal(400_000_000n);
    expect(await eventsOnStream(), 'not yet on the log').to.deep.equal(['CreditsAdded']);
    let recorded = false;
    void durable.then(() => (recorded = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(recorded, 'durable waits for the commit').to.equal(false);
    release();
    expect((await durable).reserved).to.equal(400_000_000n);
    expect(await eventsOnStream()).to.deep.equal(['CreditsAdded', 'FundsReserved']);
  });

  it('says in `durable` what was recorded when a lost race decides the reserve again as a refusal', async () => {
    // another instance reserves 0.8 USD of the 1 USD just before this one's append: 0.4 USD no longer fits
    const rival = new AccountService({ store: new PostgresEventStore(database), snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock });
    store.beforeNextAppend = async () => void (await rival.execute('org_early', reserve('gen-rival', 800_000_000n), 'gen-rival'));
    const { decided, durable } = await accounts.executeEarly('org_early', reserve('gen-early2', 400_000_000n), 'gen-early2');
    expect(decided.decision, 'decided on what this instance knew').to.have.property('events');
    const final = await durable;
    expect(final.decision).to.have.property('rejection');
    expect(final.decision).to.have.nested.property('rejection.code', 'insufficient_funds');
    expect(await eventsOnStream()).to.deep.equal(['CreditsAdded', 'FundsReserved']);
  });

  it('rejects `durable` when the append fails, and nothing is recorded', async () => {
    store.beforeNextAppend = () => Promise.reject(Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' }));
    const { decided, durable } = await accounts.executeEarly('org_early', reserve('gen-early3', 400_000_000n), 'gen-early3');
    expect(decided.decision).to.have.property('events');
    let failure: unknown;
    await durable.catch((error: unknown) => (failure = error));
    expect(failure).to.have.property('code', 'ECONNRESET');
    expect(await eventsOnStream()).to.deep.equal(['CreditsAdded']);
    // the account was not left believing the reserve happened: the same amount is reserved again
    const again = await accounts.execute('org_early', reserve('gen-early4', 1_000_000_000n), 'gen-early4');
    expect(again.decision, 'the whole 1 USD is still available').to.have.property('events');
  });

  it('answers a refusal once, as decided and as recorded (nothing to commit)', async () => {
    // 2 USD does not fit in 1 USD of credit
    const { decided, durable } = await accounts.executeEarly('org_early', reserve('gen-early5', 2_000_000_000n), 'gen-early5');
    expect(decided.decision).to.have.nested.property('rejection.code', 'insufficient_funds');
    expect(await durable).to.equal(decided);
  });

  it(`tells a decision early only after ${QUIET_BEFORE_EARLY} optimistic batches in a row committed without a lost race`, async () => {
    const cautious = new AccountService({ store, snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock });
    const toldEarly = async (reservationId: string): Promise<boolean> => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      store.beforeNextAppend = () => held;
      const early = cautious.executeEarly('org_early', reserve(reservationId, 1n), reservationId);
      const told = await Promise.race([early.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 50))]);
      release();
      await (await early).durable;
      return told;
    };
    // the AddCredits of beforeEach went through the other service: this one has run no batch yet
    const told: boolean[] = [];
    for (let index = 0; index <= QUIET_BEFORE_EARLY; index++) told.push(await toldEarly(`gen-quiet${index}`));
    expect(told).to.deep.equal([...Array.from({ length: QUIET_BEFORE_EARLY }, () => false), true]);
  });
});
