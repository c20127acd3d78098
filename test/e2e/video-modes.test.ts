import { expect } from 'chai';
import OpenAI from 'openai';
import { ManualClock } from './money-rules/money-rules-kit.js';
import { createScratchDatabase, testRedisPrefix, testRedisUrl } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';

/**
 * A video job's whole life in each way the worker runs: BullMQ on real Redis (production), and the
 * in-process runner on PGlite (embedded); and the one-hour timeout on the gateway's own clock, moved by the
 * test. openai/sora-2 at $0.10 a second: 4 s = 400,000,000 n$.
 */
const MODEL = 'openai/sora-2';
const MODES: ReadonlyArray<{ name: string; env: () => Promise<{ env: Record<string, string>; drop: () => Promise<void> }> }> = [
  {
    name: 'production, BullMQ on Redis',
    env: async () => {
      const scratch = await createScratchDatabase('video_bullmq');
      return { env: { DATABASE_URL: scratch.url, REDIS_URL: testRedisUrl(), REDIS_PREFIX: testRedisPrefix('videos') }, drop: scratch.drop };
    },
  },
  { name: 'embedded, the in-process runner on PGlite', env: async () => ({ env: { DATABASE_URL: '' }, drop: async () => undefined }) },
];

for (const mode of MODES) {
  describe(`video jobs in ${mode.name}`, function () {
    this.timeout(90_000);
    let harness: GatewayHarness;
    let drop: () => Promise<void>;

    before(async () => {
      const { env, drop: dropDatabase } = await mode.env();
      drop = dropDatabase;
      harness = await startGatewayHarness(env);
    });
    after(async () => {
      try {
        await harness?.checkLedger();
      } finally {
        await harness?.close();
        await drop?.();
      }
    });

    it('queues, submits, completes and bills a job, and the file downloads', async () => {
      const { orgId, secret } = await harness.customer('1');
      harness.openai.enqueue({ path: '/v1/videos', video: { completeAfterMs: 200 } });
      const client = new OpenAI({ apiKey: secret, baseURL: `${harness.gateway.url}/v1`, maxRetries: 0 });
      const created = await client.videos.create({ model: MODEL as 'sora-2', prompt: 'a lighthouse at dawn' });
      await eventually(async () => expect((await client.videos.retrieve(created.id)).status).to.equal('completed'), 20_000, 100);
      // 1,000,000,000 − 400,000,000
      await eventually(async () => expect(await harness.gateway.accounts.balance(orgId)).to.deep.equal({ balance: 600_000_000n, reserved: 0n, available: 600_000_000n }), 10_000);
      expect((await (await client.videos.downloadContent(created.id)).arrayBuffer()).byteLength).to.be.greaterThan(0);
      expect(harness.openai.videos.created, 'submitted once').to.equal(1);
    });
  });
}

describe('the one-hour timeout of a video job, on the gateway clock', function () {
  this.timeout(60_000);
  const clock = new ManualClock(new Date().toISOString());
  let harness: GatewayHarness;
  let drop: () => Promise<void>;

  before(async () => {
    const scratch = await createScratchDatabase('video_timeout');
    drop = scratch.drop;
    harness = await startGatewayHarness({ DATABASE_URL: scratch.url }, { clock });
  });
  after(async () => {
    try {
      await harness?.checkLedger();
    } finally {
      await harness?.close();
      await drop?.();
    }
  });

  it('fails a job the provider has not finished one hour after it was submitted, charges nothing and cancels it at the provider', async () => {
    const { orgId, secret } = await harness.customer('1');
    harness.openai.enqueue({ path: '/v1/videos', video: { manual: true } });
    const client = new OpenAI({ apiKey: secret, baseURL: `${harness.gateway.url}/v1`, maxRetries: 0 });
    const created = await client.videos.create({ model: MODEL as 'sora-2', prompt: 'a very long take' });
    await eventually(async () => expect((await client.videos.retrieve(created.id)).status).to.equal('in_progress'));
    const providerId = harness.openai.videos.ids().at(-1)!;
    clock.advance(59 * 60_000);
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // two ticks: not yet an hour
    expect((await client.videos.retrieve(created.id)).status).to.equal('in_progress');
    clock.advance(60_000);
    const failed = await eventually(async () => {
      const video = await client.videos.retrieve(created.id);
      expect(video.status).to.equal('failed');
      return video;
    }, 10_000);
    expect(failed.error).to.deep.equal({ code: 'timeout', message: 'the job did not finish within one hour' });
    expect(harness.openai.videos.status(providerId), 'cancelled at the provider').to.equal(undefined);
    await eventually(async () => expect(await harness.gateway.accounts.balance(orgId)).to.deep.equal({ balance: 1_000_000_000n, reserved: 0n, available: 1_000_000_000n }));
  });
});
