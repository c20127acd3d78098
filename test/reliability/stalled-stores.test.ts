import { expect } from 'chai';
import { startFakeOpenAi, type FakeOpenAi } from '../../ops/fake-providers/fake-openai-provider.js';
import { startTcpProxy, type TcpProxy } from '../../ops/bench/lib/tcp-proxy.js';
import { createScratchDatabase, testRedisPrefix, testRedisUrl } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { FAKE_OPENAI_KEY } from '../support/test-gateway.js';
import { chatBody, postJson, send, type Answer, customerOf } from './reliability-support.js';

/**
 * Issue 37, item 2: Postgres and Redis that accept connections but never answer (a TCP proxy that stops
 * forwarding), and whose connections are reset. Every model request gets `503 service_unavailable` with
 * `Retry-After` within the documented bound (DATABASE_TIMEOUT_MS, 5 s, and half a second; Redis's command
 * timeout, 1 s), never a hung request, and the gateway serves again once the store answers, without a restart.
 */
const POSTGRES_BOUND_MS = 5_000 + 500 + 1_500; // the statement bound, the client's margin, and slack for a busy machine
// the command timeout (1 s); a request that meets a second command on the stalled connection waits for it too
const REDIS_BOUND_MS = 2 * 1_000 + 1_500;

describe('reliability: stalled and reset stores (a production gateway process behind TCP proxies)', function () {
  this.timeout(120_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let fake: FakeOpenAi;
  let postgres: TcpProxy;
  let redis: TcpProxy;
  let gateway: GatewayProcess;
  let secret: string;

  before(async () => {
    scratch = await createScratchDatabase('stalls');
    fake = await startFakeOpenAi({ apiKey: FAKE_OPENAI_KEY });
    const database = new URL(scratch.url);
    postgres = await startTcpProxy(database.hostname, Number(database.port || 5432));
    const redisUrl = new URL(testRedisUrl());
    redis = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
    database.hostname = '127.0.0.1';
    database.port = String(postgres.port);
    gateway = await startGatewayProcess(
      { DATABASE_URL: database.toString(), REDIS_URL: `redis://127.0.0.1:${redis.port}`, REDIS_PREFIX: testRedisPrefix('stalls') },
      { openai: fake.url },
    );
    ({ secret } = await customerOf(gateway, { credits: '5', key: { rpm: 10_000 } }));
  });

  after(async () => {
    await gateway?.stop();
    await Promise.allSettled([postgres?.close(), redis?.close(), fake?.close()]);
    await scratch?.drop();
  });

  /** Chat, messages and a video job, at once: what a client sees of each. */
  async function modelRequests(): Promise<Answer[]> {
    return Promise.all([
      postJson(`${gateway.url}/v1/chat/completions`, secret, chatBody()),
      postJson(`${gateway.url}/v1/messages`, secret, { model: 'openai/gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] }),
      postJson(`${gateway.url}/v1/videos`, secret, { model: 'openai/sora-2', prompt: 'a lighthouse', seconds: 4 }),
    ]);
  }

  function expectUnavailable(answers: readonly Answer[], boundMs: number, label: string): void {
    for (const [index, answer] of answers.entries()) {
      const where = `${label}, request ${index + 1} (${answer.ms} ms)`;
      expect(answer.status, where).to.equal(503);
      expect(answer.headers.get('retry-after'), where).to.match(/^\d+$/);
      expect(answer.body?.error?.type, where).to.equal('api_error');
      expect(answer.ms, where).to.be.below(boundMs);
    }
  }

  async function expectServedAgain(label: string): Promise<number> {
    const started = Date.now();
    await eventually(async () => {
      const answers = await modelRequests();
      expect(answers.map((answer) => answer.status), label).to.deep.equal([200, 200, 200]);
    }, 30_000, 200);
    return Date.now() - started;
  }

  it('answers 503 with Retry-After within the bound while Postgres stalls, and serves again when it answers', async () => {
    expect((await modelRequests()).map((answer) => answer.status)).to.deep.equal([200, 200, 200]);
    postgres.stall();
    const answers = await modelRequests();
    const readiness = await send(`${gateway.url}/readyz`, { timeoutMs: POSTGRES_BOUND_MS });
    expect(readiness.status, '/readyz').to.equal(503);
    expectUnavailable(answers, POSTGRES_BOUND_MS, 'Postgres stalled');
    postgres.resume();
    const recoveredMs = await expectServedAgain('after the stall');
    console.log(`      Postgres stalled: 503 after ${answers.map((answer) => answer.ms).join(', ')} ms; served again ${recoveredMs} ms after it answered`);
  });

  it('answers at once while Postgres resets its connections, and serves again at once', async () => {
    postgres.reset();
    const answers = await modelRequests();
    for (const answer of answers) expect([200, 503], `${answer.status} ${answer.text}`).to.include(answer.status);
    const recoveredMs = await expectServedAgain('after the reset');
    console.log(`      Postgres reset: answers ${answers.map((answer) => `${answer.status} in ${answer.ms} ms`).join(', ')}; served again within ${recoveredMs} ms`);
  });

  it('answers 503 with Retry-After within the bound while Redis stalls, and serves again when it answers', async () => {
    redis.stall();
    const answers = await modelRequests();
    expectUnavailable(answers, REDIS_BOUND_MS, 'Redis stalled');
    redis.resume();
    const recoveredMs = await expectServedAgain('after the Redis stall');
    console.log(`      Redis stalled: 503 after ${answers.map((answer) => answer.ms).join(', ')} ms; served again ${recoveredMs} ms after it answered`);
    redis.reset();
    const afterReset = await expectServedAgain('after the Redis reset');
    console.log(`      Redis reset: served again within ${afterReset} ms`);
  });
});
