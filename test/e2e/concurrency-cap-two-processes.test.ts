import { expect } from 'chai';
import { parseUsd } from '../../src/billing/money.js';
import { PostgresEventStore } from '../../src/eventstore/postgres/postgres-event-store.js';
import { openPostgres, type Database } from '../../src/db/database.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../ops/fake-providers/fake-openai-provider.js';
import { createScratchDatabase, testRedisPrefix, testRedisUrl } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { replayAccounts } from '../support/ledger-audit.js';
import { FAKE_OPENAI_KEY } from '../support/test-gateway.js';
import { gate } from './money-rules/money-rules-kit.js';

/**
 * A key capped at 5 requests at once (`max_concurrent_requests`), served by two gateway OS processes on one
 * Postgres and one Redis, with the account link on: the organization's account is decided by one owner,
 * so the count of open requests is exact across both. The fake provider measures how many requests it
 * answers at once. A killed instance's reservations are closed by the survivor once its heartbeat lease
 * lapses (10 s), which frees their slots long before their deadline (`quick/gpt-4o-mini`: 2 s + 60 s).
 */
const CAP = 5;
const BODY = { model: 'openai/gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] };
const MESSAGE = `this API key already has ${CAP} requests running, its max_concurrent_requests; retry when one of them has ended`;
/** The run's measured figures, printed under the test. */
const report = (line: string) => process.stdout.write(`      ${line}\n`);

interface Outcome {
  readonly status: number;
  readonly code?: string;
  readonly message?: string;
  readonly retryAfter?: string | null;
}

describe('a concurrency cap across two gateway processes (real Postgres, Redis, account link)', function () {
  this.timeout(240_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let fake: FakeOpenAi;
  let first: GatewayProcess;
  let second: GatewayProcess;
  let database: Database;
  let store: PostgresEventStore;

  before(async () => {
    scratch = await createScratchDatabase('concurrency_cap');
    fake = await startFakeOpenAi({ apiKey: FAKE_OPENAI_KEY });
    const env = {
      DATABASE_URL: scratch.url,
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: testRedisPrefix('concurrency'),
      ACCOUNT_LINK_PORT: '0',
      ACCOUNT_LINK_HOST: '127.0.0.1',
      ACCOUNT_LINK_SECRET: 'concurrency-link-secret',
    };
    first = await startGatewayProcess(env, { openai: fake.url });
    second = await startGatewayProcess(env, { openai: fake.url });
    database = await openPostgres({ url: scratch.url, poolSize: 2 });
    store = new PostgresEventStore(database);
  });

  after(async () => {
    try {
      // the log balances, and the surviving process shows the same figures
      if (store && second) {
        await eventually(async () => {
          for (const [orgId, account] of await replayAccounts(store)) {
            const shown = await second.admin.ok('GET', `/organizations/${orgId}`);
            expect({ balance: parseUsd(shown.balance_usd), reserved: parseUsd(shown.reserved_usd) }, orgId).to.deep.equal({ balance: account.balance, reserved: account.reserved });
          }
        }, 15_000);
      }
    } finally {
      await Promise.all([first?.stop(), second?.stop()]);
      await store?.close();
      await database?.close();
      await fake?.close();
      await scratch?.drop();
    }
  });

  beforeEach(() => fake.reset());

  /** A key capped at 5 at once that both processes authenticate; per-minute limits lifted out of the way. */
  async function cappedKey(): Promise<{ orgId: string; secret: string }> {
    const created = await first.admin.organizationWithKey({ credits: '1', key: { max_concurrent_requests: CAP, rpm: 100_000, tpm: 100_000_000 } });
    for (const gateway of [first, second]) {
      await eventually(async () => expect((await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${created.secret}` } })).status).to.equal(200));
    }
    return created;
  }

  async function send(gateway: GatewayProcess, secret: string, body: object = BODY): Promise<Outcome> {
    const answer = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await answer.json()) as { error?: { code: string; message: string } };
    return answer.status === 200 ? { status: 200 } : { status: answer.status, code: json.error?.code, message: json.error?.message, retryAfter: answer.headers.get('retry-after') };
  }

  it('lets exactly 5 of 20 requests sent at once through, half to each process, and refuses the others with 429', async () => {
    const { secret } = await cappedKey();
    const held = gate();
    fake.enqueue(...Array.from({ length: 20 }, () => ({ holdUntil: held.promise })));
    let answered = 0;
    const pending = Array.from({ length: 20 }, (_, index) => send(index % 2 === 0 ? first : second, secret).finally(() => (answered += 1)));
    // each request has reached the provider (held there) or been answered: only then may the provider answer
    await eventually(async () => expect(fake.requests.length + answered).to.equal(20), 30_000, 20);
    expect(fake.inFlight, 'at the provider together').to.equal(CAP);
    held.open();
    const outcomes = await Promise.all(pending);
    expect(outcomes.filter((outcome) => outcome.status === 200)).to.have.length(CAP);
    expect(outcomes.filter((outcome) => outcome.status !== 200)).to.deep.equal(Array.from({ length: 15 }, () => ({ status: 429, code: 'rate_limit_exceeded', message: MESSAGE, retryAfter: '1' })));
    expect(fake.maxInFlight).to.equal(CAP);
  });

  it('never has more than 5 at the provider while 20 clients keep sending through both processes', async () => {
    const { orgId, secret } = await cappedKey();
    // 60 answers of 100 ms each: the provider is busy long enough for the clients to press on the cap
    fake.enqueue(...Array.from({ length: 60 }, () => ({ firstByteDelayMs: 100 })));
    let refused = 0;
    const client = async (index: number) => {
      for (let served = 0; served < 3; ) {
        const outcome = await send(index % 2 === 0 ? first : second, secret);
        if (outcome.status === 200) served += 1;
        else {
          expect(outcome).to.deep.include({ status: 429, message: MESSAGE });
          refused += 1;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    };
    await Promise.all(Array.from({ length: 20 }, (_, index) => client(index)));
    expect(fake.requests).to.have.length(60);
    expect(fake.maxInFlight, 'the most at the provider at any moment').to.equal(CAP);
    expect(refused, 'the clients pressed on the cap').to.be.greaterThan(0);
    report(`60 requests served, ${refused} refused with 429, at most ${fake.maxInFlight} at the provider at once`);
    // 60 requests of 12 × 150 + 7 × 600 = 6,000 n$ each
    await eventually(async () => expect((await second.admin.ok('GET', `/organizations/${orgId}`)).balance_usd).to.equal('0.99964'));
  });

  it("frees a killed process's slots once its heartbeat lease lapses, long before the reservations' deadline, returning their money", async () => {
    const { orgId, secret } = await cappedKey();
    const quick = { ...BODY, model: 'quick/gpt-4o-mini' };
    fake.enqueue(...Array.from({ length: CAP }, () => ({ holdUntil: new Promise<void>(() => {}) })));
    const lost = Array.from({ length: CAP }, () => send(first, secret, quick).catch(() => undefined));
    await eventually(async () => expect(fake.inFlight).to.equal(CAP), 15_000, 20);
    // the request log read model follows the log within moments
    const reservations = await eventually(async () => {
      const open = (await second.admin.ok('GET', `/organizations/${orgId}/reservations`)).data as Array<{ expires_at: string }>;
      expect(open).to.have.length(CAP);
      return open;
    });
    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    await new Promise((resolve) => first.child.once('exit', resolve));
    await Promise.all(lost);

    const firstDeadline = Math.min(...reservations.map((reservation) => Date.parse(reservation.expires_at)));
    // right after the kill the dead process's requests still hold every slot: its lease has not lapsed yet
    const justAfter = await send(second, secret, quick);
    expect(justAfter).to.deep.include({ status: 429, message: MESSAGE });
    let servedAt: number | undefined;
    // lease 10 s (renewed every 3.3 s) + one orphan sweep (every 5 s) + margin; the deadline is 62 s after the reserve
    while (servedAt === undefined && Date.now() < killedAt + 30_000) {
      const triedAt = Date.now();
      const outcome = await send(second, secret, quick);
      if (outcome.status === 200) servedAt = triedAt;
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(servedAt, 'served again within 30 s of the kill').to.not.equal(undefined);
    expect(servedAt! - killedAt, 'not before the lease could have lapsed (10 s less one renewal period)').to.be.at.least(6_000);
    expect(servedAt!, 'long before the first deadline').to.be.below(firstDeadline - 20_000);
    // the orphans were closed as holder_lost: their money is no longer held, and nothing was charged for them
    await eventually(async () => expect((await second.admin.ok('GET', `/organizations/${orgId}`)).reserved_usd).to.equal('0.00'), 15_000, 250);
    // past the closing the 5 slots are free again, and the cap still holds
    const held = gate();
    fake.enqueue(...Array.from({ length: CAP }, () => ({ holdUntil: held.promise })));
    const again = Array.from({ length: CAP }, () => send(second, secret, quick));
    await eventually(async () => expect(fake.inFlight).to.equal(CAP), 15_000, 20);
    expect(await send(second, secret, quick)).to.deep.include({ status: 429, message: MESSAGE });
    held.open();
    expect((await Promise.all(again)).map((outcome) => outcome.status)).to.deep.equal(Array.from({ length: CAP }, () => 200));
    report(`killed process's slots and money free ${servedAt! - killedAt} ms after the kill; the first deadline was ${Math.round((firstDeadline - killedAt) / 1000)} s after it`);
  });
});
