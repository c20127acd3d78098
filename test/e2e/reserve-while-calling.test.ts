import { expect } from 'chai';
import OpenAI from 'openai';
import pg from 'pg';
import { testDatabaseUrl } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { useGatewayHarness } from '../support/gateway-harness.js';

/**
 * The provider is called while the request's reservation commits, and nothing reaches the client before
 * it is recorded (DESIGN 5, the reserve). A test connection to the same Postgres holds the account stream's
 * row (`event_streams`, the row every append to the stream updates), so that the reservation's append
 * waits for the test; the fake provider answers at once. Through the official SDK.
 */
describe('the provider called while the reservation commits (real Postgres)', function () {
  this.timeout(60_000);
  const harness = useGatewayHarness();
  let locker: pg.Client;

  beforeEach(async () => {
    locker = new pg.Client({ connectionString: testDatabaseUrl() });
    await locker.connect();
  });
  afterEach(async () => {
    await locker.query('rollback').catch(() => undefined);
    await locker.end();
  });

  /** Holds the account stream's row: appends to it wait until `rollback`. The stream exists once credits were added. */
  async function holdAccountStream(orgId: string): Promise<void> {
    await locker.query('begin');
    const { rowCount } = await locker.query('select 1 from event_streams where stream_id = $1 for update', [`account-${orgId}`]);
    expect(rowCount, 'the account stream exists').to.equal(1);
  }

  /** The backend of the gateway's append waiting on the held row. */
  async function waitingAppend(): Promise<number> {
    return eventually(async () => {
      const { rows } = await locker.query<{ pid: number }>(
        `select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
      );
      expect(rows, 'an append waits on the account stream').to.have.length(1);
      return rows[0]!.pid;
    });
  }

  /**
   * An account decides early only once its instance has committed QUIET_BEFORE_EARLY (16) batches on it in
   * a row without a lost race: ten requests of two batches each (reserve, settle), 10 × 6,000 n$ = 60,000 n$.
   */
  async function quietAccount(): Promise<{ orgId: string; secret: string }> {
    const customer = await harness().customer('10');
    for (let index = 0; index < 10; index++) expect((await chat(customer.secret)).response.status).to.equal(200);
    harness().openai.reset();
    return customer;
  }

  const chat = (secret: string) =>
    new OpenAI({ apiKey: secret, baseURL: `${harness().gateway.url}/v1`, maxRetries: 0 }).chat.completions
      .create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], max_tokens: 100 })
      .withResponse();

  it('has the provider answer while the reserve is not yet recorded, and answers the client only once it is', async () => {
    const { openai } = harness();
    const { orgId, secret } = await quietAccount();
    await holdAccountStream(orgId);
    let answered = false;
    const request = chat(secret).then((answer) => ((answered = true), answer));
    await waitingAppend();
    await eventually(async () => expect(openai.requests, 'the provider was called meanwhile').to.have.length(1));
    expect(await openai.lastRequest!.outcome, 'and has answered in full').to.equal('finished');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered, 'the client has nothing while the reservation is not recorded').to.equal(false);
    await locker.query('rollback');
    const { response } = await request;
    expect(response.status).to.equal(200);
    // the default answer: 12 input tokens at 0.15 USD/Mtok + 7 output tokens at 0.60 USD/Mtok = 1,800 + 4,200 = 6,000 n$;
    // 11 requests in all: 10 USD − 66,000 n$
    const money = await harness().settledMoney(orgId);
    expect(money).to.deep.equal({ balance: 9_999_934_000n, reserved: 0n });
  });

  it('aborts the provider call and answers 503 when the reservation cannot be recorded, charging nothing', async () => {
    const { openai } = harness();
    const { orgId, secret } = await quietAccount();
    // the provider's answer takes 2 s: the reservation fails first, and the call is abandoned
    openai.enqueue({ firstByteDelayMs: 2_000 });
    await holdAccountStream(orgId);
    const request = chat(secret).catch((error: unknown) => error);
    const append = await waitingAppend();
    await eventually(async () => expect(openai.requests).to.have.length(1));
    // the append's connection dies, as in a database failover
    await locker.query('select pg_terminate_backend($1)', [append]);
    const failure = await request;
    expect(failure).to.be.instanceOf(OpenAI.APIError);
    expect(failure).to.have.property('status', 503);
    expect((failure as InstanceType<typeof OpenAI.APIError>).error).to.deep.include({ type: 'api_error', code: 'service_unavailable' });
    expect(await openai.lastRequest!.outcome, 'the provider call was abandoned').to.equal('closed');
    await locker.query('rollback');
    // the ten requests before it only: 10 USD − 60,000 n$
    expect(await harness().settledMoney(orgId)).to.deep.equal({ balance: 9_999_940_000n, reserved: 0n });
  });
});
