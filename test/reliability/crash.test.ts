import { expect } from 'chai';
import { sql } from 'kysely';
import { openPostgres, type Database } from '../../src/db/database.js';
import { PostgresEventStore } from '../../src/eventstore/postgres/postgres-event-store.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../ops/fake-providers/fake-openai-provider.js';
import { npmRunAudit } from '../support/audit-cli.js';
import { createScratchDatabase, testRedisPrefix, testRedisUrl } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { replayAccounts } from '../support/ledger-audit.js';
import { FAKE_OPENAI_KEY, TEST_ADMIN_TOKEN } from '../support/test-gateway.js';
import { accountEvents, chatBody, historyByReservation, postJson, sleep, customerOf } from './reliability-support.js';

/**
 * Issue 37, item 1: an instance killed with SIGKILL while 50 requests are in flight, streaming and not,
 * two production instances with the account link on; the killed one owns one busy account and forwards
 * the other's commands to the survivor. The survivor serves both organizations again at once, admits
 * exactly what the balance minus the dead instance's reservations allows, takes the dead owner's account
 * over when its lease lapses, and closes the 50 orphaned reservations (charging nothing) within 30 s of
 * the kill; no event is lost or written twice, and `npm run audit -- verify` passes. A paused instance
 * (SIGSTOP shorter than its lease) loses nothing. Then the same kill in the embedded mode, restarted.
 */
const LINK = { ACCOUNT_LINK_PORT: '0', ACCOUNT_LINK_HOST: '127.0.0.1', ACCOUNT_LINK_SECRET: 'reliability-link-secret' };
const IN_FLIGHT_PER_ORG = 25;
const BURST = 30;
/** chatBody()'s reserve: 18 input tokens × 150 n$ + 1,000 output tokens × 600 n$ (test/e2e/ledger-two-processes.test.ts). */
const RESERVE = 602_700n;
const ORPHANS_CLOSED_WITHIN_MS = 30_000;

describe('reliability: an instance killed with requests in flight (production, two instances, the account link)', function () {
  this.timeout(180_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let fake: FakeOpenAi;
  let first: GatewayProcess;
  let second: GatewayProcess;
  let restarted: GatewayProcess | undefined;
  let database: Database;
  let store: PostgresEventStore;
  let env: Record<string, string>;

  before(async () => {
    scratch = await createScratchDatabase('crash');
    fake = await startFakeOpenAi({ apiKey: FAKE_OPENAI_KEY });
    env = { DATABASE_URL: scratch.url, REDIS_URL: testRedisUrl(), REDIS_PREFIX: testRedisPrefix('crash'), ...LINK };
    first = await startGatewayProcess(env, { openai: fake.url });
    second = await startGatewayProcess(env, { openai: fake.url });
    database = await openPostgres({ url: scratch.url, poolSize: 2 });
    store = new PostgresEventStore(database);
  });

  after(async () => {
    await Promise.allSettled([first?.stop(), second?.stop(), restarted?.stop()]);
    await store?.close();
    await database?.close();
    await fake?.close();
    await scratch?.drop();
  });

  async function customer(credits: bigint, gateways = [first, second]) {
    const created = await second.admin.organizationWithKey({ credits: (Number(credits) / 1e9).toFixed(9), key: { rpm: 10_000, tpm: 100_000_000 } });
    for (const gateway of gateways) {
      await eventually(async () => expect((await fetch(`${gateway.url}/v1/models`, { headers: { 'x-api-key': created.secret } })).status).to.equal(200));
    }
    return created;
  }

  it('serves both organizations from the survivor, admits exactly, and closes the 50 orphans within 30 s, charging nothing', async () => {
    const credits = RESERVE * BigInt(IN_FLIGHT_PER_ORG + 10);
    const owned = await customer(credits); // its account owned by the instance that dies
    const forwarded = await customer(credits); // its account owned by the survivor
    // the first command for an account takes its lease: one request each through its future owner
    expect((await postJson(`${first.url}/v1/chat/completions`, owned.secret, chatBody())).status).to.equal(200);
    expect((await postJson(`${second.url}/v1/chat/completions`, forwarded.secret, chatBody())).status).to.equal(200);
    const afterWarmUp = await Promise.all(
      [owned, forwarded].map(({ orgId }) =>
        eventually(async () => {
          const shown = await second.admin.ok('GET', `/organizations/${orgId}`);
          expect(shown.reserved_usd).to.equal('0.00');
          return BigInt(Math.round(Number(shown.balance_usd) * 1e9));
        }),
      ),
    );

    fake.reset();
    let releaseHeld!: () => void;
    const held = new Promise<void>((resolve) => (releaseHeld = resolve));
    fake.enqueue(...Array.from({ length: 2 * IN_FLIGHT_PER_ORG }, () => ({ holdUntil: held })));
    const inFlight = [owned, forwarded].flatMap(({ secret }) =>
      Array.from({ length: IN_FLIGHT_PER_ORG }, (_, index) => postJson(`${first.url}/v1/chat/completions`, secret, chatBody({ stream: index % 2 === 0 }))),
    );
    await eventually(async () => expect(fake.requests.length, 'requests reserved and at the provider').to.equal(2 * IN_FLIGHT_PER_ORG), 20_000, 20);

    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    const lost = await Promise.all(inFlight);
    for (const { orgId } of [owned, forwarded]) {
      const reserves = (await accountEvents(store, orgId)).filter((event) => event.type === 'FundsReserved');
      expect(reserves.map((event) => event.type === 'FundsReserved' && BigInt(event.data.amount)), 'every reserve the computed amount').to.deep.equal(Array(1 + IN_FLIGHT_PER_ORG).fill(RESERVE));
    }
    expect(lost.every((answer) => answer.status === 0 || answer.status === 200), 'the killed instance\'s clients see their connection break').to.equal(true);

    // The survivor at once: a burst of 30 per organization, each held at the provider, against what the
    // balance holds besides the 25 orphans: exactly that many reserves pass, the rest get 402.
    fake.reset();
    let releaseBurst!: () => void;
    const burstHeld = new Promise<void>((resolve) => (releaseBurst = resolve));
    fake.enqueue(...Array.from({ length: 2 * BURST }, () => ({ holdUntil: burstHeld })));
    const burst = [owned, forwarded].map(({ secret }) => Array.from({ length: BURST }, () => postJson(`${second.url}/v1/chat/completions`, secret, chatBody())));
    const servedAgainMs = await eventually(async () => {
      expect(fake.requests.length).to.be.greaterThan(0);
      return Date.now() - killedAt;
    }, 20_000, 10);

    // orphans closed: the accounts hold only the burst's reservations again
    const closedMs = await eventually(async () => {
      for (const { orgId } of [owned, forwarded]) {
        const expired = (await accountEvents(store, orgId)).filter((event) => event.type === 'ReservationExpired');
        expect(expired.length, `${orgId}: orphans expired`).to.equal(IN_FLIGHT_PER_ORG);
        expect(expired.every((event) => event.type === 'ReservationExpired' && event.data.reason === 'holder_lost')).to.equal(true);
      }
      return Date.now() - killedAt;
    }, 60_000, 100);
    releaseBurst();
    releaseHeld();
    const outcomes = await Promise.all(burst.map((answers) => Promise.all(answers)));
    // the lapsed lease is claimed by the survivor at its next command for the account once the lease has
    // lapsed (10 s after the dead instance's last renewal): a request through it, until it owns the account
    await eventually(async () => {
      expect((await postJson(`${second.url}/v1/chat/completions`, owned.secret, chatBody())).status).to.equal(200);
      const { rows: owners } = await sql<{ org_id: string; address: string }>`select org_id, address from account_owners`.execute(database.kysely);
      const survivorAddress = owners.find((row) => row.org_id === forwarded.orgId)?.address;
      expect(owners.find((row) => row.org_id === owned.orgId)?.address, 'the dead owner\'s account taken over by the survivor').to.equal(survivorAddress);
    }, 15_000, 200);
    for (const [index, answers] of outcomes.entries()) {
      const served = answers.filter((answer) => answer.status === 200).length;
      const refused = answers.filter((answer) => answer.status === 402 && answer.body?.error?.code === 'insufficient_funds').length;
      // what the balance held besides the orphans: credits − the warm-up's cost − 25 orphans' reserves
      const expected = Number((afterWarmUp[index]! - RESERVE * BigInt(IN_FLIGHT_PER_ORG)) / RESERVE);
      expect({ served, refused }, `organization ${index + 1}: exact admission while the orphans were held`).to.deep.equal({ served: expected, refused: BURST - expected });
    }
    console.log(`      survivor served again ${servedAgainMs} ms after the kill; orphans closed ${closedMs} ms after it`);
    expect(closedMs, 'orphans closed within 30 s of the kill').to.be.below(ORPHANS_CLOSED_WITHIN_MS);

    await expectNothingLostOrTwice([owned.orgId, forwarded.orgId]);
  });

  it('loses nothing of an instance paused for less than its lease (SIGSTOP 5 s, SIGCONT)', async () => {
    restarted = await startGatewayProcess(env, { openai: fake.url });
    const paused = restarted;
    const { orgId, secret } = await customer(RESERVE * 20n, [second, paused]);
    fake.reset();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    fake.enqueue(...Array.from({ length: 10 }, () => ({ holdUntil: held })));
    const answers = Array.from({ length: 10 }, (_, index) => postJson(`${paused.url}/v1/chat/completions`, secret, chatBody({ stream: index % 2 === 0 })));
    await eventually(async () => expect(fake.requests.length).to.equal(10), 20_000, 20);
    paused.child.kill('SIGSTOP');
    await sleep(5_000);
    paused.child.kill('SIGCONT');
    release();
    expect((await Promise.all(answers)).map((answer) => answer.status)).to.deep.equal(Array(10).fill(200));
    await eventually(async () => {
      const histories = [...historyByReservation(await accountEvents(store, orgId)).values()];
      expect(histories.map((history) => history.map((event) => event.type))).to.deep.equal(Array(10).fill(['FundsReserved', 'ReservationSettled']));
    }, 20_000);
    await expectNothingLostOrTwice([orgId]);
  });

  /** Each reservation reserved once and closed once; the balance equation holds; the audit's verify passes. */
  async function expectNothingLostOrTwice(orgIds: readonly string[]): Promise<void> {
    await eventually(async () => {
      const accounts = await replayAccounts(store);
      for (const orgId of orgIds) {
        const account = accounts.get(orgId)!;
        expect({ reserved: account.reserved, open: account.open.size }, orgId).to.deep.equal({ reserved: 0n, open: 0 });
        expect(account.balance >= 0n, `${orgId}: never below zero`).to.equal(true);
        for (const [id, history] of historyByReservation(await accountEvents(store, orgId))) {
          expect(history.map((event) => event.type.startsWith('Funds') ? 'reserved' : 'closed'), id).to.deep.equal(['reserved', 'closed']);
        }
      }
    }, 20_000, 200);
    const verify = await npmRunAudit(['verify'], { DATABASE_URL: scratch.url });
    expect(verify.code, verify.stderr).to.equal(0);
  }
});

describe('reliability: the embedded gateway killed with requests in flight, and restarted on its data directory', function () {
  this.timeout(120_000);
  let fake: FakeOpenAi;
  let gateway: GatewayProcess | undefined;
  let dataDir: string;

  before(async () => {
    fake = await startFakeOpenAi({ apiKey: FAKE_OPENAI_KEY });
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    dataDir = mkdtempSync(join(tmpdir(), 'gw-crash-embedded-'));
  });

  after(async () => {
    await gateway?.stop();
    await fake?.close();
    const { rmSync } = await import('node:fs');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('closes what the killed process held at the first sweep after the restart, charging nothing, and the audit verifies', async () => {
    const env = { DATABASE_URL: '', DATA_DIR: dataDir };
    gateway = await startGatewayProcess(env, { openai: fake.url });
    const { orgId, secret } = await customerOf(gateway, { credits: '5', key: { rpm: 10_000, tpm: 100_000_000 } });
    fake.enqueue(...Array.from({ length: 20 }, () => ({ holdUntil: new Promise<void>(() => undefined) })));
    const inFlight = Array.from({ length: 20 }, (_, index) => postJson(`${gateway!.url}/v1/chat/completions`, secret, chatBody({ stream: index % 2 === 0 })));
    await eventually(async () => expect(fake.requests.length).to.equal(20), 20_000, 20);
    await eventually(async () => expect((await gateway!.admin.ok('GET', `/organizations/${orgId}`)).reserved_usd).to.not.equal('0.00'));
    gateway.child.kill('SIGKILL');
    await Promise.all(inFlight);
    await gateway.stop();
    fake.reset();

    const restartedAt = Date.now();
    gateway = await startGatewayProcess(env, { openai: fake.url });
    const organization = await eventually(async () => {
      const shown = await gateway!.admin.ok('GET', `/organizations/${orgId}`);
      expect(shown.reserved_usd).to.equal('0.00');
      return shown;
    }, 30_000, 200);
    console.log(`      orphans closed ${Date.now() - restartedAt} ms after the restart began`);
    expect(organization.balance_usd, 'charged nothing').to.equal('5.00');
    expect((await postJson(`${gateway.url}/v1/chat/completions`, secret, chatBody())).status).to.equal(200);
    const verify = await npmRunAudit(['verify'], { DATA_DIR: dataDir, ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    expect(verify.code, verify.stderr).to.equal(0);
  });
});
