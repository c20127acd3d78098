import { expect } from 'chai';
import { startGatewayHarness, type GatewayHarness } from '../../support/gateway-harness.js';
import { eventually } from '../../support/eventually.js';
import { startTestGateway } from '../../support/test-gateway.js';
import { chat, postChat } from './money-rules-kit.js';

type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

/**
 * Two gateway instances on one database. Every access change that binds spending, made through the
 * first, binds the very next request on the second. The second's access subscription is stopped, so the
 * only way it can learn of a change in time is the account fence (the admin command's AccessRulesChanged
 * on the organization's account stream, which makes the second's reserve conflict, refresh and decide
 * again). `chat(cap)` reserves 1,650 + 600 × cap n$ (money-rules-kit.ts).
 */
/**
 * Both ways of running instances side by side: each deciding on the account itself, and with the account
 * link (src/ledger/owners), where the instance that owns the organization's account decides every reserve
 * and the fence reaches it as a forwarded command.
 */
const SETUPS: ReadonlyArray<{ name: string; env: Record<string, string> }> = [
  { name: 'each instance deciding on the account', env: {} },
  { name: 'an owner per account over the account link', env: { ACCOUNT_LINK_PORT: '0', ACCOUNT_LINK_HOST: '127.0.0.1', ACCOUNT_LINK_SECRET: 'access-fences-link-secret' } },
];

for (const setup of SETUPS) {
  describe(`money rules: access fences across instances, ${setup.name}`, function () {
    this.timeout(90_000);
    let harness: GatewayHarness;
    let second: TestGateway;
    before(async () => {
      harness = await startGatewayHarness(setup.env);
      second = await startTestGateway(setup.env, { openai: harness.openai.url, anthropic: harness.anthropic.url });
    });
    after(async () => {
      await second?.dispose();
      await harness?.close();
    });

    /** A customer both instances serve; then the second stops following access changes by subscription. */
    async function customer(key: Record<string, unknown> = {}, organization: Record<string, unknown> = {}) {
      const created = await harness.admin.organizationWithKey({ credits: '1', key, organization });
      await eventually(async () => expect((await postChat(harness, created.secret, chat(10), {}, second.url)).status).to.equal(200));
      expect((await postChat(harness, created.secret, chat(10))).status).to.equal(200);
      return created;
    }

    describe('with the second instance deaf to access events', () => {
      before(async () => {
        // customers first (the second must know the keys), then silence its subscription for every test
        fixtures = {
          keyLimit: await customer(),
          models: await customer({ models: ['openai/gpt-4o-mini', 'local/llama'] }),
          expiry: await customer(),
          orgLimit: await customer(),
          blocked: await customer(),
        };
        await second.directory.stop();
      });
      let fixtures: Record<'keyLimit' | 'models' | 'expiry' | 'orgLimit' | 'blocked', { orgId: string; keyId: string; secret: string }>;
      const onSecond = (secret: string, body = chat(10)) => postChat(harness, secret, body, {}, second.url);

      it('applies a lowered key limit', async () => {
        const { keyId, secret } = fixtures.keyLimit;
        // daily $0.00005 = 50,000 n$; chat(100) reserves 61,650 > 50,000 (it was served before the change)
        await harness.admin.ok('PATCH', `/keys/${keyId}`, { limits: { daily_usd: '0.00005' } });
        const answer = await onSecond(secret, chat(100));
        expect(answer.status, JSON.stringify(answer.body)).to.equal(402);
        expect(answer.body.error.code).to.equal('key_limit_exceeded');
      });

      it('applies a changed model list', async () => {
        const { keyId, secret } = fixtures.models;
        await harness.admin.ok('PATCH', `/keys/${keyId}`, { models: ['local/llama'] });
        const answer = await onSecond(secret);
        expect(answer.status, JSON.stringify(answer.body)).to.equal(403);
        expect(answer.body.error.code).to.equal('model_not_allowed');
      });

      it('applies an expiry set in the past', async () => {
        const { keyId, secret } = fixtures.expiry;
        await harness.admin.ok('PATCH', `/keys/${keyId}`, { expires_at: new Date(Date.now() - 1_000).toISOString() });
        const answer = await onSecond(secret);
        expect(answer.status, JSON.stringify(answer.body)).to.equal(401);
        expect(answer.body.error.code).to.equal('invalid_api_key');
      });

      it("applies a lowered organization limit", async () => {
        const { orgId, secret } = fixtures.orgLimit;
        // the two warm-up requests spent 2 × 6,000 = 12,000; daily $0.00002 = 20,000 n$; chat(10) reserves
        // 7,650: 12,000 + 7,650 = 19,650 fits, chat(20) reserves 13,650: 25,650 > 20,000
        await harness.admin.ok('PATCH', `/organizations/${orgId}`, { spend_limits: { daily_usd: '0.00002' } });
        const answer = await onSecond(secret, chat(20));
        expect(answer.status, JSON.stringify(answer.body)).to.equal(402);
        expect(answer.body.error.code).to.equal('spend_limit_exceeded');
        expect(answer.body.error.message).to.contain('of the organization for the day');
        expect((await onSecond(secret, chat(10))).status).to.equal(200);
      });

      it('applies blocking', async () => {
        const { orgId, secret } = fixtures.blocked;
        await harness.admin.ok('PATCH', `/organizations/${orgId}`, { status: 'blocked' });
        const answer = await onSecond(secret);
        expect(answer.status, JSON.stringify(answer.body)).to.equal(403);
        expect(answer.body.error.code).to.equal('account_blocked');
      });
    });

    it('serves exactly the requests whose reserve was granted, across both instances', async () => {
      // 5 × chat(100) = 5 × 61,650 = 308,250 n$ = $0.00030825: the balance covers exactly five reserves
      const { orgId, secret } = await harness.admin.organizationWithKey({ credits: '0.00030825', key: { rpm: 1_000 } });
      // both instances know the key and hold the account in memory, so the second one to reserve must lose
      // the append race and decide again, rather than load the account after the other's reserves
      for (const url of [harness.gateway.url, second.url]) {
        await eventually(async () => expect((await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } })).status).to.equal(200));
      }
      await second.accounts.balance(orgId);
      await harness.gateway.accounts.balance(orgId);
      harness.openai.reset();
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      harness.openai.enqueue(...Array.from({ length: 20 }, () => ({ holdUntil: released })));
      let answeredEarly = 0;
      const answers = Array.from({ length: 20 }, async (_, index) => {
        const answer = await postChat(harness, secret, chat(100), {}, index % 2 === 0 ? harness.gateway.url : second.url);
        if (answer.status !== 200) answeredEarly++;
        return answer;
      });
      // the provider answers only once every request has reached it or been refused: nobody settles early
      await eventually(async () => expect(harness.openai.requests.length + answeredEarly).to.equal(20), 20_000, 10);
      const atProvider = harness.openai.requests.length;
      release();
      const statuses = (await Promise.all(answers)).map((answer) => (answer.status === 200 ? '200' : `${answer.status} ${answer.body.error.code}`));
      const tally = Object.fromEntries([...new Set(statuses)].map((status) => [status, statuses.filter((each) => each === status).length]));
      expect(tally).to.deep.equal({ '200': 5, '402 insufficient_funds': 15 });
      expect(atProvider, 'requests that reached the provider').to.equal(5);
      // 308,250 − 5 × 6,000 = 278,250 n$ left
      expect(await harness.settledMoney(orgId)).to.deep.equal({ balance: 278_250n, reserved: 0n });
    });
  });
}
