import { expect } from 'chai';
import OpenAI from 'openai';
import { loadCatalogFile } from '../../src/catalog/load-catalog.js';
import type { CatalogModel } from '../../src/catalog/catalog.js';
import { costOfUsage } from '../../src/catalog/pricing.js';
import { openPostgres, type Database } from '../../src/db/database.js';
import { PostgresEventStore } from '../../src/eventstore/postgres/postgres-event-store.js';
import { decodeAccountEvent } from '../../src/ledger/account-event-catalogue.js';
import { formatUsd, parseUsd } from '../../src/billing/money.js';
import { createScratchDatabase, testRedisPrefix, testRedisUrl } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../ops/fake-providers/fake-openai-provider.js';
import { DEFAULT_USAGE } from '../../ops/fake-providers/scripted-answer.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { replayAccounts } from '../support/ledger-audit.js';
import { FAKE_OPENAI_KEY, TEST_CATALOG } from '../support/test-gateway.js';
import { createUsage } from '../../src/billing/usage.js';

/**
 * Issue #5: 200 concurrent reserves against a budget that covers exactly 50, split over two gateway OS
 * processes that share one Postgres (log and read models) and one Redis (rate limits, jobs). Each process
 * has its own in-memory account state, so only the append with the expected revision keeps the 51st
 * request out. The log alone must then balance (credits − settled = balance, open reservations = reserved).
 *
 * Determinism: the fake provider holds every answer until each of the 200 requests has either reached it
 * or been answered by the gateway. So every reserve is decided while all 50 winners still hold their full
 * reserve: a winner that settled early would hand back part of its reserve (its cost is below it) and could
 * let a 51st request through, making the count depend on timing. The hold also proves the requests really
 * were in flight together. The condition is counted, not timed.
 */
const MODEL_ID = 'openai/gpt-4o-mini';
const REQUESTS = 200;
const AFFORDABLE = 50;
// a fixed body with its own output cap, so the reserve does not depend on the model's ceiling
const BODY = { model: MODEL_ID, messages: [{ role: 'user' as const, content: 'Say hello in one short sentence.' }], max_tokens: 1_000 };

interface Outcome {
  readonly status: number;
  readonly type?: string;
  readonly code?: string | null;
}

/**
 * Both ways of running instances side by side: each deciding on the account itself (the append with the
 * expected revision keeps the 51st out), and with the account link, where the first process to serve the
 * organization owns its account and the other forwards its reserves and settles there (src/ledger/owners).
 */
const SETUPS: ReadonlyArray<{ name: string; env: Record<string, string> }> = [
  { name: 'each process deciding on the account', env: {} },
  { name: 'an owner per account over the account link', env: { ACCOUNT_LINK_PORT: '0', ACCOUNT_LINK_HOST: '127.0.0.1', ACCOUNT_LINK_SECRET: 'two-processes-link-secret' } },
];

for (const setup of SETUPS) {
  describe(`ledger across two gateway processes (real Postgres and Redis), ${setup.name}`, function () {
    this.timeout(180_000);
    let scratch: { url: string; drop: () => Promise<void> };
    let fake: FakeOpenAi;
    let first: GatewayProcess;
    let second: GatewayProcess;
    let database: Database;
    let store: PostgresEventStore;
    let model: CatalogModel;
    let reserve: bigint;

    before(async () => {
      // its own database: no other test's gateway appends to this log, and the audit reads only ours
      scratch = await createScratchDatabase('two_processes');
      fake = await startFakeOpenAi({ apiKey: FAKE_OPENAI_KEY });
      const env = { DATABASE_URL: scratch.url, REDIS_URL: testRedisUrl(), REDIS_PREFIX: testRedisPrefix('two-processes'), ...setup.env };
      // one after the other: each migrates the database at start
      first = await startGatewayProcess(env, { openai: fake.url });
      second = await startGatewayProcess(env, { openai: fake.url });
      database = await openPostgres({ url: scratch.url, poolSize: 4 });
      store = new PostgresEventStore(database);
      model = (await loadCatalogFile(TEST_CATALOG)).models.get(MODEL_ID)!;
      // BODY's reserve: the strings "user" (1 o200k token) and "Say hello in one short sentence." (7) = 8,
      // × 5/4 = 10; two objects × 4 = 8; input 18 tokens. 18 × 150 + 1,000 × 600 = 2,700 + 600,000 n$.
      reserve = 602_700n;
    });

    after(async () => {
      await Promise.all([first?.stop(), second?.stop()]);
      await store?.close();
      await database?.close();
      await fake?.close();
      await scratch?.drop();
    });

    beforeEach(() => fake.reset());

    afterEach(async function () {
      if (!first || !second) return;
      // After every test: the balance equation from the log, and both processes show the same figures.
      await eventually(async () => {
        for (const [orgId, account] of await replayAccounts(store)) {
          for (const gateway of [first, second]) {
            const shown = await gateway.admin.ok('GET', `/organizations/${orgId}`);
            expect({ balance: signedUsd(shown.balance_usd), reserved: parseUsd(shown.reserved_usd) }, `${orgId} on ${gateway.url}`).to.deep.equal({
              balance: account.balance,
              reserved: account.reserved,
            });
          }
        }
      }, 10_000);
    });

    /** An organization with `credits` USD and a key that both processes already authenticate. */
    async function customer(credits: string, keyLimits?: Record<string, unknown>) {
      // 200 requests in a burst: lift the per-minute limits, or 429 would answer instead of the ledger
      const key = { rpm: 10_000, tpm: 100_000_000, ...(keyLimits ? { limits: keyLimits } : {}) };
      const created = await first.admin.organizationWithKey({ credits, key });
      for (const gateway of [first, second]) {
        // the second process learns of the key through its event-store subscription
        await eventually(async () => expect((await fetch(`${gateway.url}/v1/models`, { headers: { 'x-api-key': created.secret } })).status).to.equal(200));
        // Both processes now hold the account in memory at the same revision. Otherwise the process that
        // reserves second might load the account only after the other's reservations are in the log and
        // refuse without ever meeting a conflict; warm, it must lose the append race and decide again.
        expect((await gateway.admin.ok('GET', `/organizations/${created.orgId}`)).balance_usd).to.equal(formatUsd(parseUsd(credits)));
      }
      return created;
    }

    /** Fires the 200 requests, half to each process, interleaved, and answers them only once all are decided. */
    async function race(secret: string): Promise<{ outcomes: Outcome[]; atProvider: number }> {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      fake.enqueue(...Array.from({ length: REQUESTS }, () => ({ holdUntil: released })));
      const clients = {
        first: new OpenAI({ apiKey: secret, baseURL: `${first.url}/v1`, maxRetries: 0 }),
        second: new OpenAI({ apiKey: secret, baseURL: `${second.url}/v1`, maxRetries: 0 }),
      };
      let answered = 0;
      const pending = Array.from({ length: REQUESTS }, async (_, index): Promise<Outcome> => {
        try {
          await (index % 2 === 0 ? clients.first : clients.second).chat.completions.create(BODY);
          return { status: 200 };
        } catch (error) {
          answered += 1;
          if (!(error instanceof OpenAI.APIError)) throw error;
          return { status: error.status ?? 0, type: error.type, code: error.code };
        }
      });
      // Every request has either reached the provider (held there) or been answered by the gateway: only
      // then may the provider answer. A wrong split (51 through, or 49) still adds up to 200 and releases.
      const guard = Date.now() + 120_000;
      while (fake.requests.length + answered < REQUESTS) {
        if (Date.now() > guard) {
          release();
          throw new Error(`stuck: ${fake.requests.length} requests at the provider, ${answered} answered by the gateways`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const atProvider = fake.requests.length;
      release();
      return { outcomes: await Promise.all(pending), atProvider };
    }

    function expectSplit({ outcomes, atProvider }: { outcomes: readonly Outcome[]; atProvider: number }, refusal: { code: string }): void {
      const tally = new Map<string, number>();
      for (const outcome of outcomes) {
        const label = outcome.status === 200 ? '200' : `${outcome.status} ${outcome.type} ${outcome.code}`;
        tally.set(label, (tally.get(label) ?? 0) + 1);
      }
      expect(Object.fromEntries(tally)).to.deep.equal({
        '200': AFFORDABLE,
        [`402 insufficient_quota_error ${refusal.code}`]: REQUESTS - AFFORDABLE,
      });
      expect(atProvider, 'requests held at the provider together, before any was answered').to.equal(AFFORDABLE);
    }

    /** The log of the organization: 50 reservations of the computed amount, each settled exactly once. */
    async function expectLedger(orgId: string, credits: bigint): Promise<void> {
      const cost = costOfUsage(model.pricing, createUsage({ inputTokens: DEFAULT_USAGE.inputTokens, outputTokens: DEFAULT_USAGE.outputTokens }));
      // settling follows the answer, and readAll shows an event once older transactions have ended
      await eventually(async () => {
        const events = (await store.readStream(`account-${orgId}`)).map(decodeAccountEvent);
        const reserved = events.flatMap((event) => (event.type === 'FundsReserved' ? [event.data] : []));
        const settled = events.flatMap((event) => (event.type === 'ReservationSettled' ? [event.data] : []));
        expect(reserved, 'FundsReserved events').to.have.length(AFFORDABLE);
        for (const reservation of reserved) expect(BigInt(reservation.amount), 'the reserve the test computed').to.equal(reserve);
        expect(settled.map((settlement) => settlement.reservationId).sort(), 'each reservation settled once').to.deep.equal(reserved.map((reservation) => reservation.reservationId).sort());
        expect(events.filter((event) => ['ReservationReleased', 'ReservationCutOff', 'ReservationExpired'].includes(event.type)), 'other closings').to.deep.equal([]);

        const account = (await replayAccounts(store)).get(orgId)!;
        expect({ credits: account.credits, settled: account.settled, balance: account.balance, reserved: account.reserved, open: account.open.size, closed: account.closed.size }).to.deep.equal({
          credits,
          settled: BigInt(AFFORDABLE) * cost,
          balance: credits - BigInt(AFFORDABLE) * cost,
          reserved: 0n,
          open: 0,
          closed: AFFORDABLE,
        });
      }, 20_000);
    }

    it('serves exactly 50 of 200 concurrent requests when the balance covers exactly 50 reserves', async () => {
      const credits = BigInt(AFFORDABLE) * reserve;
      const { orgId, secret } = await customer(formatUsd(credits));
      expectSplit(await race(secret), { code: 'insufficient_funds' });
      await expectLedger(orgId, credits);
    });

    it('serves exactly 50 of 200 concurrent requests when the key daily limit covers exactly 50 reserves', async () => {
      const credits = parseUsd('100');
      const { orgId, secret } = await customer('100', { daily_usd: formatUsd(BigInt(AFFORDABLE) * reserve) });
      expectSplit(await race(secret), { code: 'key_limit_exceeded' });
      await expectLedger(orgId, credits);
    });
  });
}

/** The admin API's USD string, which may be negative for a balance. */
function signedUsd(text: string): bigint {
  return text.startsWith('-') ? -parseUsd(text.slice(1)) : parseUsd(text);
}
