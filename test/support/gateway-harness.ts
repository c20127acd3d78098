import { expect } from 'chai';
import { startFakeAnthropic, type FakeAnthropic } from '../../ops/fake-providers/fake-anthropic-provider.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../ops/fake-providers/fake-openai-provider.js';
import { AdminClient } from './admin-client.js';
import { eventually } from './eventually.js';
import { replayAccounts } from './ledger-audit.js';
import { FAKE_ANTHROPIC_KEY, FAKE_OPENAI_KEY, startTestGateway } from './test-gateway.js';
import type { StartOptions } from '../../src/main.js';
import { parseUsd } from '../../src/billing/money.js';

/**
 * A gateway in production mode in front of both fake providers, with an admin client: what the
 * end-to-end suites of the text endpoints share. `checkLedger` recomputes the balance equation from the
 * log (with the finance audit's replay) and compares it with what the admin API shows; `npm run audit --
 * verify` runs once after the whole suite (test/e2e/ledger-verify.test.ts).
 */
export interface GatewayHarness {
  readonly gateway: Awaited<ReturnType<typeof startTestGateway>>;
  readonly openai: FakeOpenAi;
  readonly anthropic: FakeAnthropic;
  readonly admin: AdminClient;
  /** An organization with `credits` USD and a key (extra key settings optional). */
  customer(credits?: string, key?: Record<string, unknown>): Promise<{ orgId: string; keyId: string; secret: string }>;
  /** Balance and reserved amount of an organization, in nanodollars, once no reservation is open. */
  settledMoney(orgId: string): Promise<{ balance: bigint; reserved: bigint }>;
  checkLedger(): Promise<void>;
  close(): Promise<void>;
}

export async function startGatewayHarness(env: Record<string, string> = {}, options: StartOptions = {}): Promise<GatewayHarness> {
  const openai = await startFakeOpenAi({ apiKey: FAKE_OPENAI_KEY });
  const anthropic = await startFakeAnthropic({ apiKey: FAKE_ANTHROPIC_KEY });
  const gateway = await startTestGateway(env, { openai: openai.url, anthropic: anthropic.url }, options);
  const admin = new AdminClient(gateway.url);
  return {
    gateway,
    openai,
    anthropic,
    admin,
    customer: (credits = '10', key = {}) => admin.organizationWithKey({ credits, key }),
    async settledMoney(orgId) {
      // closing happens right after the answer; give it the moment it takes
      for (let attempt = 0; ; attempt++) {
        const money = await gateway.accounts.balance(orgId);
        if (money.reserved === 0n || attempt > 100) return { balance: money.balance, reserved: money.reserved };
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async checkLedger() {
      // readAll shows an event committed a moment ago only once every older transaction of the server has
      // ended (other databases' included: on a busy shared server that takes seconds, not milliseconds)
      await eventually(async () => {
        for (const [orgId, account] of await replayAccounts(gateway.store)) {
          const shown = await admin.ok('GET', `/organizations/${orgId}`);
          const balance = parseUsd(shown.balance_usd.replace('-', '')) * (shown.balance_usd.startsWith('-') ? -1n : 1n);
          expect({ balance, reserved: parseUsd(shown.reserved_usd) }, orgId).to.deep.equal({ balance: account.balance, reserved: account.reserved });
        }
      }, 10_000);
    },
    async close() {
      await gateway.dispose();
      await openai.close();
      await anthropic.close();
    },
  };
}

/**
 * A harness for the enclosing suite: started before its tests; after them, the balance equation is checked
 * from the log and the harness closed, also when the check fails. Call the returned function in the tests.
 */
export function useGatewayHarness(env: Record<string, string> = {}, options: StartOptions = {}): () => GatewayHarness {
  let harness: GatewayHarness | undefined;
  before(async () => {
    harness = await startGatewayHarness(env, options);
  });
  after(async () => {
    if (!harness) return;
    try {
      await harness.checkLedger();
    } finally {
      await harness.close();
    }
  });
  return () => {
    if (!harness) throw new Error('the gateway harness is not started yet');
    return harness;
  };
}
