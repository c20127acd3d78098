import { expect } from 'chai';
import type { Clock } from '../../src/clock.js';
import { createScratchDatabase } from './databases.js';
import { eventually } from './eventually.js';
import { startGatewayHarness, type GatewayHarness } from './gateway-harness.js';
import { postText, textRequest } from './text-format-client.js';

/**
 * A gateway on a database of its own, whose clock the test moves, with a known history for the overview
 * (the figures are across every organization, so no other test's requests may be in its database):
 * - the 1st of last month, 12:00 UTC: Alpha spends 0.00045 (gpt-4o-mini, 1000 in, 500 out) and Beta
 *   0.0045 (claude-sonnet-4-5, 1000 in, 100 out);
 * - yesterday, 12:00 UTC: Alpha spends 0.000006 (12 in, 7 out);
 * - today, from 12:00 UTC on (the clock stays on today's noon, whatever the hour of the run, so that no
 *   test sees the day change under it): Alpha spends 0.0009 in two requests, Gamma 0.00045 in one, and Beta's one request fails at the
 *   provider (released: an error, nothing charged).
 * Beta was credited 0.0049 and has 0.0004 left (8.1 %); Gamma's daily limit of 0.00048 has 0.00003 left
 * (6.2 %). `holdOpen` keeps one more request of Alpha's running until `release`.
 */
export interface OverviewHistory {
  readonly harness: GatewayHarness;
  /** The gateway's clock: today at noon UTC and after, once the history is written. */
  readonly clock: Clock;
  readonly alpha: Customer;
  readonly beta: Customer;
  readonly gamma: Customer;
  /** Starts a request of Alpha's that the provider holds: an open reservation until `release`. */
  holdOpen(): Promise<{ release: () => Promise<void> }>;
  close(): Promise<void>;
}

interface Customer {
  readonly orgId: string;
  readonly keyId: string;
  readonly secret: string;
}

const DAY_MS = 86_400_000;

export async function startOverviewHistory(): Promise<OverviewHistory> {
  let offsetMs = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
  const scratch = await createScratchDatabase('overview');
  const harness = await startGatewayHarness({ DATABASE_URL: scratch.url }, { clock });
  const { admin, openai, anthropic } = harness;
  const customer = (name: string, credits: string, organization: Record<string, unknown> = {}): Promise<Customer> =>
    admin.organizationWithKey({ credits, organization: { name, ...organization }, key: { name: `${name} key` } });
  const chat = async (who: Customer, status = 200) => {
    const answer = await postText(harness.gateway.url, 'chat', who.secret, textRequest('chat', 'openai/gpt-4o-mini', { stream: false, maxTokens: 100 }));
    expect(answer.status).to.equal(status);
  };
  const at = (time: number) => (offsetMs = time - Date.now());

  try {
    const alpha = await customer('Alpha', '10');
    const beta = await customer('Beta', '0.0049');
    const gamma = await customer('Gamma', '1', { spend_limits: { daily_usd: '0.00048' } });
    const now = new Date();
    at(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1, 12));
    openai.enqueue({ usage: { inputTokens: 1000, outputTokens: 500 } });
    await chat(alpha);
    anthropic.enqueue({ usage: { inputTokens: 1000, outputTokens: 100 } });
    const messages = await postText(harness.gateway.url, 'messages', beta.secret, textRequest('messages', 'anthropic/claude-sonnet-4-5', { stream: false, maxTokens: 100 }));
    expect(messages.status).to.equal(200);
    at(Math.floor(now.getTime() / DAY_MS) * DAY_MS - DAY_MS / 2);
    openai.enqueue({ usage: { inputTokens: 12, outputTokens: 7 } });
    await chat(alpha);
    at(Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS / 2);
    openai.enqueue({ usage: { inputTokens: 1000, outputTokens: 500 } }, { usage: { inputTokens: 1000, outputTokens: 500 } });
    await chat(alpha);
    await chat(alpha);
    openai.enqueue({ usage: { inputTokens: 1000, outputTokens: 500 } });
    await chat(gamma);
    openai.enqueue({ error: { status: 500 } });
    await chat(beta, 500);
    // the read models have them all: 7 requests closed
    await eventually(async () => expect((await admin.ok('GET', '/requests?limit=100')).data.filter((request: { status: string }) => request.status !== 'open')).to.have.length(7));
    return {
      harness,
      clock,
      alpha,
      beta,
      gamma,
      async holdOpen() {
        let release!: () => void;
        openai.enqueue({ holdUntil: new Promise<void>((resolve) => (release = resolve)), usage: { inputTokens: 12, outputTokens: 7 } });
        const running = postText(harness.gateway.url, 'chat', alpha.secret, textRequest('chat', 'openai/gpt-4o-mini', { stream: false, maxTokens: 100 }));
        await eventually(async () => expect((await admin.ok('GET', '/overview')).open_reservations.count).to.equal(1));
        return {
          release: async () => {
            release();
            expect((await running).status).to.equal(200);
          },
        };
      },
      async close() {
        try {
          await harness.checkLedger();
        } finally {
          await harness.close();
          await scratch.drop();
        }
      },
    };
  } catch (error) {
    await harness.close();
    await scratch.drop();
    throw error;
  }
}
