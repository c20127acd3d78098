import { expect } from 'chai';
import { sql } from 'kysely';
import { pino } from 'pino';
import { createUsage } from '../../../src/billing/usage.js';
import type { CatalogModel } from '../../../src/catalog/catalog.js';
import { loadCatalogFile } from '../../../src/catalog/load-catalog.js';
import { systemClock } from '../../../src/clock.js';
import type { Database } from '../../../src/db/database.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import { AccountService } from '../../../src/ledger/account-service.js';
import { AccountSnapshotStore } from '../../../src/ledger/account-snapshot.js';
import { closeOnAccount } from '../../../src/pipeline/steps/close-step.js';
import type { Reservation } from '../../../src/pipeline/request-stages.js';
import type { Caller } from '../../../src/pipeline/authenticate.js';
import { openProxiedDatabase, type ProxiedDatabase } from '../../support/databases.js';
import { TEST_CATALOG } from '../../support/test-gateway.js';

/**
 * Closing a reservation when the event store cannot be reached (the settle step of the pipeline): a short
 * outage is waited out and the settlement lands once Postgres is back; any other failure is tried three
 * times, then left to the sweeper (logged, charged nothing now). Real Postgres behind a TCP proxy the test
 * closes and reopens. gpt-4o-mini: 12 input × 150 n$ + 7 output × 600 n$ = 6,000 n$; reserve 61,650 n$.
 */
describe('settle step while the event store is away (real Postgres behind a proxy)', function () {
  this.timeout(60_000);
  let database: ProxiedDatabase;
  let direct: Database;
  let accounts: AccountService;
  let model: CatalogModel;
  const lines: Array<{ msg: string; reservationId?: string; orgId?: string }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });

  before(async () => {
    database = await openProxiedDatabase('settle_outage');
    direct = database.direct;
    accounts = new AccountService({ store: new PostgresEventStore(database.proxied), snapshots: new AccountSnapshotStore(database.proxied.kysely), clock: systemClock });
    model = (await loadCatalogFile(TEST_CATALOG)).models.get('openai/gpt-4o-mini')!;
  });
  after(async () => {
    await database?.dispose();
  });

  /** A reservation of 61,650 n$ on a fresh organization with 1 USD. */
  async function reserved(orgId: string): Promise<Reservation> {
    const requestId = `gen-${orgId.replaceAll('_', '')}`;
    await accounts.execute(orgId, { type: 'AddCredits', amount: 1_000_000_000n }, 'admin:test');
    const owner = { keyId: 'key_outage', employeeId: null, teamId: null, spaceId: null };
    const decision = await accounts.execute(
      orgId,
      { type: 'ReserveFunds', reservationId: requestId, endpoint: 'chat', owner, model: model.id, category: 'text', amount: 61_650n, price: { version: 1, serviceTier: null }, deadline: new Date(Date.now() + 660_000), limits: {}, accessRevisions: {} },
      requestId,
    );
    expect(decision.decision).to.have.property('events');
    return { orgId, reservationId: requestId, owner, amount: 61_650n, caller: undefined as unknown as Caller, recorded: Promise.resolve() };
  }

  /** The account as a fresh reader of the log sees it. */
  const fromTheLog = (orgId: string) =>
    new AccountService({ store: new PostgresEventStore(direct), snapshots: new AccountSnapshotStore(direct.kysely), clock: systemClock }).balance(orgId);

  it('waits out a short outage and settles once the store is back', async () => {
    const reservation = await reserved('org_outage');
    lines.length = 0;
    await database.cut();
    const closing = closeOnAccount(accounts, model.pricing, reservation, { kind: 'settle', usage: createUsage({ inputTokens: 12, outputTokens: 7 }) }, logger);
    // longer than three quick attempts (100 + 200 + 400 ms of backoff): only the outage rule keeps it trying
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await database.restore();
    expect(await closing).to.equal(6_000n);
    expect(await fromTheLog('org_outage')).to.deep.equal({ balance: 999_994_000n, reserved: 0n, available: 999_994_000n });
    expect(lines.filter((line) => line.msg.includes('could not close'))).to.deep.equal([]);
  });

  it('gives up after three attempts on a failure that is not an outage, leaving the reservation to the sweeper', async () => {
    const reservation = await reserved('org_fault');
    lines.length = 0;
    // the real account service, its commands counted: each attempt to close is one command
    let attempts = 0;
    const closer = Object.assign(Object.create(accounts) as AccountService, {
      execute: (...args: Parameters<AccountService['execute']>) => {
        attempts++;
        return accounts.execute(...args);
      },
    });
    // a fault of the store's schema, not of the connection
    await sql`alter table events rename to events_away`.execute(direct.kysely);
    try {
      const cost = await closeOnAccount(closer, model.pricing, reservation, { kind: 'settle', usage: createUsage({ inputTokens: 12, outputTokens: 7 }) }, logger);
      expect(cost, 'nothing charged now').to.equal(0n);
    } finally {
      await sql`alter table events_away rename to events`.execute(direct.kysely);
    }
    expect(attempts).to.equal(3);
    const gaveUp = lines.filter((line) => line.msg === 'could not close a reservation; the sweeper will expire it');
    expect(gaveUp).to.have.length(1);
    // the operator finds the reservation the sweeper will expire from the log line
    expect(gaveUp[0]).to.include({ reservationId: reservation.reservationId, orgId: 'org_fault' });
    // still open: its money is held until the sweeper expires it at the deadline
    expect(await fromTheLog('org_fault')).to.deep.equal({ balance: 1_000_000_000n, reserved: 61_650n, available: 999_938_350n });
  });

  it('releases in full and charges nothing', async () => {
    const reservation = await reserved('org_release');
    expect(await closeOnAccount(accounts, model.pricing, reservation, { kind: 'release', reason: 'provider_error' }, logger)).to.equal(0n);
    expect(await fromTheLog('org_release')).to.deep.equal({ balance: 1_000_000_000n, reserved: 0n, available: 1_000_000_000n });
  });
});
