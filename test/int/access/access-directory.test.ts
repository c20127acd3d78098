import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import { AccessCommands } from '../../../src/access/access-commands.js';
import { AccessDirectory } from '../../../src/access/access-directory.js';
import { DEFAULT_RPM, DEFAULT_TPM, NO_LIMITS, type KeySettings } from '../../../src/access/access-events.js';
import { keyStatus, type KeyState } from '../../../src/access/key-decider.js';
import { hashKeySecret } from '../../../src/access/key-secret.js';
import { systemClock } from '../../../src/clock.js';
import { migrateToLatest, openPostgres, type Database } from '../../../src/db/database.js';
import { PostgresEventStore } from '../../../src/eventstore/postgres/postgres-event-store.js';
import { AccountService } from '../../../src/ledger/account-service.js';
import { AccountSnapshotStore } from '../../../src/ledger/account-snapshot.js';
import { createScratchDatabase } from '../../support/databases.js';
import { eventually } from '../../support/eventually.js';

/**
 * The access directory (every key and organization in memory, built only from events) against a real
 * Postgres event store. Changes go through the admin commands of one instance (`writer`); a second
 * directory on the same store (`reader`, another gateway instance) must see them through its
 * subscription: a revoked key, a changed limit, a blocked organization. A directory refreshed on demand
 * must take a stream's tail at once and never go back to an older revision when the subscription
 * delivers the same events later.
 */
describe('access directory on Postgres', function () {
  this.timeout(60_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let database: Database;
  let store: PostgresEventStore;
  let accounts: AccountService;
  let writer: AccessDirectory;
  let reader: AccessDirectory;
  let commands: AccessCommands;
  const started: AccessDirectory[] = [];
  const errors: Array<{ msg: string; err?: { message: string } }> = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(JSON.parse(line)) });

  const settings: KeySettings & { name: string | null; employeeId: string | null } = {
    name: 'ci',
    employeeId: null,
    models: null,
    limits: { overall: NO_LIMITS, byType: {}, byModel: {} },
    rpm: DEFAULT_RPM,
    tpm: DEFAULT_TPM,
    expiresAt: null,
    maxConcurrentRequests: null,
    maxCostPerRequest: null,
  };

  async function startDirectory(): Promise<AccessDirectory> {
    const directory = new AccessDirectory(store, logger);
    started.push(directory);
    await directory.start();
    return directory;
  }
  const newOrganization = async (name: string) => (await commands.createOrganization({ name, piiMasking: false, spendLimits: NO_LIMITS }, 'test')).orgId;

  before(async () => {
    scratch = await createScratchDatabase('access_directory');
    database = await openPostgres({ url: scratch.url, poolSize: 4 });
    await migrateToLatest(database);
    store = new PostgresEventStore(database);
    accounts = new AccountService({ store, snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock });
    writer = await startDirectory();
    reader = await startDirectory();
    commands = new AccessCommands(store, accounts, writer, systemClock);
  });
  after(async () => {
    for (const directory of started) await directory.stop();
    await store?.close();
    await database?.close();
    await scratch?.drop();
  });

  it('shows another instance a key issued, changed and revoked, by its secret hash and by its id', async () => {
    const orgId = await newOrganization('Acme');
    const heard: KeyState[] = [];
    const unsubscribe = reader.onKeyChange((changed) => heard.push(changed));
    const { secret, key } = await commands.issueKey(orgId, settings, 'test');
    const hash = hashKeySecret(secret);
    const seen = () => heard.filter((k) => k.keyId === key.keyId);
    await eventually(async () => expect(reader.keyBySecretHash(hash)).to.deep.include({ keyId: key.keyId, orgId, revoked: false, rpm: DEFAULT_RPM }));

    await commands.changeKey(key.keyId, { rpm: 7, expiresAt: '2000-01-01T00:00:00.000Z' }, 'test');
    await eventually(async () => expect(reader.key(key.keyId)).to.deep.include({ rpm: 7, tpm: DEFAULT_TPM, expiresAt: '2000-01-01T00:00:00.000Z' }));
    expect(keyStatus(reader.keyBySecretHash(hash)!, new Date())).to.equal('expired');

    await commands.revokeKey(key.keyId, 'test');
    await eventually(async () => expect(reader.keyBySecretHash(hash)?.revoked).to.equal(true));
    // the in-flight requests follow onKeyChange: the revocation reached the listener, after the issue and the change
    expect(seen().map((k) => [k.revoked, k.rpm])).to.deep.equal([
      [false, DEFAULT_RPM],
      [false, 7],
      [true, 7],
    ]);
    expect(reader.revision(`key-${key.keyId}`)).to.equal(2n);

    // a listener that unsubscribed hears nothing more
    unsubscribe();
    const other = await commands.issueKey(orgId, settings, 'test');
    await eventually(async () => expect(reader.key(other.key.keyId)).to.not.equal(undefined));
    expect(heard).to.have.length(3);
  });

  it('shows another instance an organization blocked and its limits changed', async () => {
    const orgId = await newOrganization('Blocked Inc');
    await eventually(async () => expect(reader.organization(orgId)).to.deep.include({ exists: true, name: 'Blocked Inc', status: 'active', spendLimits: NO_LIMITS }));
    await commands.changeOrganization(orgId, { spendLimits: { daily: '1000000000', monthly: null } }, 'test');
    await commands.changeOrganization(orgId, { status: 'blocked' }, 'test');
    await eventually(async () =>
      expect(reader.organization(orgId)).to.deep.include({ status: 'blocked', spendLimits: { daily: '1000000000', monthly: null } }),
    );
    expect(reader.revision(`org-${orgId}`)).to.equal(2n);
  });

  it("lists an organization's keys and no other organization's", async () => {
    const [first, second] = [await newOrganization('First'), await newOrganization('Second')];
    const a = await commands.issueKey(first, settings, 'test');
    const b = await commands.issueKey(first, { ...settings, name: 'b' }, 'test');
    const c = await commands.issueKey(second, settings, 'test');
    await eventually(async () => expect(reader.key(c.key.keyId)).to.not.equal(undefined));
    expect(reader.keysOfOrganization(first).map((key) => key.keyId).sort()).to.deep.equal([a.key.keyId, b.key.keyId].sort());
    expect(reader.keysOfOrganization(second).map((key) => key.keyId)).to.deep.equal([c.key.keyId]);
    expect(reader.accessStreamsOf(c.key)).to.deep.equal([`key-${c.key.keyId}`, `org-${second}`]);
  });

  it('takes a stream tail at once on refresh, and never goes back when the subscription delivers it again', async () => {
    const orgId = await newOrganization('Refreshed');
    const { key } = await commands.issueKey(orgId, settings, 'test');
    await commands.changeKey(key.keyId, { rpm: 9 }, 'test');
    await commands.changeKey(key.keyId, { tpm: 99 }, 'test');

    const fresh = new AccessDirectory(store, logger);
    started.push(fresh);
    const seen: Array<[number, number]> = [];
    // the subscription also delivers the other tests' keys: only this key's changes are recorded
    fresh.onKeyChange((changed) => changed.keyId === key.keyId && seen.push([changed.rpm, changed.tpm]));
    expect(fresh.revision(`key-${key.keyId}`)).to.equal(-1n);
    await fresh.refresh([`key-${key.keyId}`, `org-${orgId}`]);
    expect(fresh.key(key.keyId)).to.deep.include({ rpm: 9, tpm: 99 });
    expect(fresh.organization(orgId)).to.deep.include({ exists: true, name: 'Refreshed' });
    expect(fresh.revision(`key-${key.keyId}`)).to.equal(2n);
    expect(seen).to.deep.equal([[DEFAULT_RPM, DEFAULT_TPM], [9, DEFAULT_TPM], [9, 99]]);

    // a refresh with nothing new applies nothing
    await fresh.refresh([`key-${key.keyId}`]);
    expect(seen).to.have.length(3);

    // the subscription catches up from the start and delivers revisions 0 to 2 again: all already applied
    await fresh.start();
    expect(seen).to.have.length(3);
    expect(fresh.key(key.keyId)).to.deep.include({ rpm: 9, tpm: 99 });

    // a later change still arrives through the subscription
    await commands.changeKey(key.keyId, { rpm: 10 }, 'test');
    await eventually(async () => expect(fresh.key(key.keyId)?.rpm).to.equal(10));
    expect(seen.at(-1)).to.deep.equal([10, 99]);
  });

  it('follows only the access streams, not the accounts', async () => {
    const orgId = await newOrganization('Funded');
    await commands.addCredits(orgId, 1_000_000_000n, undefined, 'test');
    const fresh = await startDirectory();
    expect(fresh.organization(orgId)).to.deep.include({ exists: true });
    expect(fresh.revision(`account-${orgId}`)).to.equal(-1n);
  });

  it('stops following changes once stopped, as a gateway shutting down', async () => {
    const orgId = await newOrganization('Stopped');
    const { key } = await commands.issueKey(orgId, settings, 'test');
    const stopped = await startDirectory();
    expect(stopped.key(key.keyId)?.rpm).to.equal(DEFAULT_RPM);
    await stopped.stop();
    await commands.changeKey(key.keyId, { rpm: 3 }, 'test');
    // a running directory sees the change within its 50 ms read interval; give the stopped one 4 times that
    await eventually(async () => expect(reader.key(key.keyId)?.rpm).to.equal(3));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stopped.key(key.keyId)?.rpm).to.equal(DEFAULT_RPM);
  });

  // Last: an event the directory cannot read stops every directory's subscription on this store.
  it('reports a subscription that stopped on an event it cannot read', async () => {
    const metadata = { schemaVersion: 1, occurredAt: new Date().toISOString(), causedBy: 'admin:test' };
    await store.append('key-broken', [{ id: randomUUID(), type: 'KeyMelted', data: {}, metadata }], { expectedRevision: 'no_stream' });
    await eventually(async () => expect(errors.map((line) => line.msg)).to.include('access directory subscription stopped'));
    // the operator is told why: the error names the event type it could not read
    expect(errors.find((line) => line.msg === 'access directory subscription stopped')?.err?.message).to.include('KeyMelted');
  });
});
