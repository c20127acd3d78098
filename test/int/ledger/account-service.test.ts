import { expect } from 'chai';
import type { SpendOwner } from '../../../src/ledger/account-events.js';
import { AccountService } from '../../../src/ledger/account-service.js';
import { AccountSnapshotStore } from '../../../src/ledger/account-snapshot.js';
import type { AccountCommand, ReserveLimits } from '../../../src/ledger/account-decider.js';
import { parseUsd } from '../../../src/billing/money.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import { migrateToLatest, openPostgres, type Database } from '../../../src/db/database.js';
import { systemClock } from '../../../src/clock.js';
import { createScratchDatabase } from '../../support/databases.js';
import { eventually } from '../../support/eventually.js';
import { replayAccounts } from '../../support/ledger-audit.js';
import { createUsage } from '../../../src/billing/usage.js';

const owner: SpendOwner = { keyId: 'key_hot', employeeId: null, teamId: null, spaceId: null };
const reserve = (id: string, amount: bigint, limits: ReserveLimits = {}): AccountCommand => ({
  type: 'ReserveFunds',
  reservationId: id,
  endpoint: 'chat',
  owner,
  model: 'openai/gpt-4o-mini',
  category: 'text',
  amount,
  price: { version: 1, serviceTier: null }, deadline: new Date(Date.now() + 600_000),
  limits,
  accessRevisions: {},
});

describe('account service on Postgres', function () {
  this.timeout(60_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let database: Database;
  let store: PostgresEventStore;
  let service: AccountService;

  beforeEach(async () => {
    scratch = await createScratchDatabase('ledger');
    database = await openPostgres({ url: scratch.url });
    await migrateToLatest(database);
    store = new PostgresEventStore(database);
    service = new AccountService({ store, snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock });
  });
  afterEach(async () => {
    // After every test the balance equation holds when recomputed from the log. The log (readAll) shows an
    // event committed a moment ago only once every older transaction of the server has ended, and other
    // databases' transactions count too: allow it a moment to become visible.
    await eventually(async () => {
      const replayed = await replayAccounts(store);
      for (const [orgId, account] of replayed) {
        const fresh = new AccountService({ store, snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock });
        const known = await fresh.balance(orgId);
        expect({ balance: known.balance, reserved: known.reserved }, orgId).to.deep.equal({ balance: account.balance, reserved: account.reserved });
      }
    }, 5_000);
    await store.close();
    await database.close();
    await scratch.drop();
  });

  it('serves exactly 50 of 200 concurrent reserves when the balance covers exactly 50', async () => {
    await service.execute('org_a', { type: 'AddCredits', amount: parseUsd('5') }, 'admin:test');
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => service.execute('org_a', reserve(`gen-${i}`, parseUsd('0.1')), `gen-${i}`)));
    const served = outcomes.filter((outcome) => 'events' in outcome.decision && outcome.decision.events.length === 1);
    const refused = outcomes.filter((outcome) => 'rejection' in outcome.decision);
    expect(served).to.have.length(50);
    expect(refused).to.have.length(150);
    for (const outcome of refused) expect((outcome.decision as { rejection: { code: string } }).rejection.code).to.equal('insufficient_funds');
    const balance = await service.balance('org_a');
    expect(balance).to.deep.equal({ balance: parseUsd('5'), reserved: parseUsd('5'), available: 0n });
  });

  it('serves exactly 50 of 200 when a key daily limit covers exactly 50', async () => {
    await service.execute('org_b', { type: 'AddCredits', amount: parseUsd('100') }, 'admin:test');
    const limits = { key: { daily: parseUsd('5') } };
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => service.execute('org_b', reserve(`gen-${i}`, parseUsd('0.1'), limits), `gen-${i}`)));
    expect(outcomes.filter((outcome) => 'events' in outcome.decision)).to.have.length(50);
    const codes = new Set(outcomes.flatMap((outcome) => ('rejection' in outcome.decision ? [outcome.decision.rejection.code] : [])));
    expect([...codes]).to.deep.equal(['key_limit_exceeded']);
  });

  it('serves exactly 50 of 200 split across two instances that share the store', async () => {
    // A second instance: its own pool, its own event store and its own cache of the account, same database.
    const otherDatabase = await openPostgres({ url: scratch.url });
    const otherStore = new PostgresEventStore(otherDatabase);
    const other = new AccountService({ store: otherStore, snapshots: new AccountSnapshotStore(otherDatabase.kysely), clock: systemClock });
    try {
      await service.execute('org_c', { type: 'AddCredits', amount: parseUsd('5') }, 'admin:test');
      const outcomes = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? service : other).execute('org_c', reserve(`gen-${i}`, parseUsd('0.1')), `gen-${i}`)),
      );
      expect(outcomes.filter((outcome) => 'events' in outcome.decision && outcome.decision.events.length === 1)).to.have.length(50);
    } finally {
      await otherStore.close();
      await otherDatabase.close();
    }
  });

  it('closes a reservation another instance opened after this one last read the account', async () => {
    // As when an account's owner changes, or a command ran where it was issued: the reserve is appended by
    // the other instance, the close is decided here, on a state loaded before the reserve.
    const otherDatabase = await openPostgres({ url: scratch.url });
    const otherStore = new PostgresEventStore(otherDatabase);
    const other = new AccountService({ store: otherStore, snapshots: new AccountSnapshotStore(otherDatabase.kysely), clock: systemClock });
    try {
      await service.execute('org_stale', { type: 'AddCredits', amount: parseUsd('1') }, 'admin:test');
      const closes: AccountCommand[] = [
        { type: 'SettleReservation', reservationId: 'gen-settled', cost: parseUsd('0.25'), usage: createUsage({ outputTokens: 5 }) },
        { type: 'CutOffReservation', reservationId: 'gen-cutoff', cost: parseUsd('0.05'), usage: createUsage() },
        { type: 'ReleaseReservation', reservationId: 'gen-released', reason: 'provider_error' },
      ];
      for (const close of closes) {
        const id = (close as { reservationId: string }).reservationId;
        await other.execute('org_stale', reserve(id, parseUsd('0.3')), id);
        const outcome = await service.execute('org_stale', close, id);
        expect('events' in outcome.decision && outcome.decision.events.map((event) => event.type), close.type).to.have.length(1);
      }
      // 1 − 0.25 − 0.05 = 0.70 USD, nothing reserved
      expect(await service.balance('org_stale')).to.deep.equal({ balance: parseUsd('0.7'), reserved: 0n, available: parseUsd('0.7') });
    } finally {
      await otherStore.close();
      await otherDatabase.close();
    }
  });

  it('settles, releases and expires so that reserved money returns to zero', async () => {
    await service.execute('org_d', { type: 'AddCredits', amount: parseUsd('10') }, 'admin:test');
    for (let i = 0; i < 4; i++) await service.execute('org_d', reserve(`gen-${i}`, parseUsd('1')), `gen-${i}`);
    await service.execute('org_d', { type: 'SettleReservation', reservationId: 'gen-0', cost: parseUsd('0.25'), usage: createUsage({ inputTokens: 10 }) }, 'gen-0');
    await service.execute('org_d', { type: 'SettleReservation', reservationId: 'gen-1', cost: parseUsd('1.5'), usage: createUsage() }, 'gen-1');
    await service.execute('org_d', { type: 'ReleaseReservation', reservationId: 'gen-2', reason: 'provider_error' }, 'gen-2');
    await service.execute('org_d', { type: 'CutOffReservation', reservationId: 'gen-3', cost: parseUsd('0.05'), usage: createUsage() }, 'gen-3');
    expect(await service.balance('org_d')).to.deep.equal({ balance: parseUsd('8.2'), reserved: 0n, available: parseUsd('8.2') });
  });

  it('loads an account whose tail is longer than one page', async () => {
    const events = Array.from({ length: 12_001 }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      type: 'CreditsAdded',
      data: { amount: '1', idempotencyKey: null },
      metadata: { schemaVersion: 1, occurredAt: new Date().toISOString(), causedBy: 'admin:test' },
    }));
    await store.append('account-org_long', events, { expectedRevision: 'no_stream' });
    expect(await service.balance('org_long')).to.deep.equal({ balance: 12_001n, reserved: 0n, available: 12_001n });
  });

  it('loads an account from its snapshot and the tail after it', async () => {
    const small = new AccountService({ store, snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock, snapshotEvery: 10 });
    await small.execute('org_e', { type: 'AddCredits', amount: parseUsd('10') }, 'admin:test');
    for (let i = 0; i < 25; i++) {
      await small.execute('org_e', reserve(`gen-${i}`, parseUsd('0.1')), `gen-${i}`);
      await small.execute('org_e', { type: 'SettleReservation', reservationId: `gen-${i}`, cost: parseUsd('0.01'), usage: createUsage() }, `gen-${i}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // snapshots are written after the batch, off the request path
    const snapshot = await new AccountSnapshotStore(database.kysely).load('org_e');
    expect(snapshot, 'a snapshot was taken').to.exist;
    expect(snapshot!.revision > 30n).to.equal(true);
    const fresh = new AccountService({ store, snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock });
    expect(await fresh.balance('org_e')).to.deep.equal({ balance: parseUsd('9.75'), reserved: 0n, available: parseUsd('9.75') });
  });
});
