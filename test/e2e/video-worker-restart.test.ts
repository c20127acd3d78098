import { expect } from 'chai';
import { startFakeOpenAi, type FakeOpenAi } from '../../ops/fake-providers/fake-openai-provider.js';
import { gate } from './money-rules/money-rules-kit.js';
import { npmRunAudit } from '../support/audit-cli.js';
import { createScratchDatabase, testRedisPrefix, testRedisUrl } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { FAKE_OPENAI_KEY } from '../support/test-gateway.js';

/**
 * A gateway process killed (SIGKILL) while its video worker waits for the provider to take a job: the
 * provider takes it after the worker is gone, and no `VideoJobSubmitted` was written. Another process's
 * worker (BullMQ on real Redis) submits the job again once the intent's lease has passed (the provider's
 * timeout of 2 s on `quick/sora-2`, test catalog, and a 5 s margin), with the same idempotency key: the
 * provider answers with the job it already has. One job upstream, one charge: 4 s × $0.10 = 400,000,000 n$.
 */
describe('a video worker killed mid-submission and another taking over (real processes, Postgres, Redis)', function () {
  this.timeout(120_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let fake: FakeOpenAi;
  const started: GatewayProcess[] = [];
  const env = () => ({ DATABASE_URL: scratch.url, REDIS_URL: testRedisUrl(), REDIS_PREFIX: testRedisPrefix('video-restart') });

  before(async () => {
    scratch = await createScratchDatabase('video_restart');
    fake = await startFakeOpenAi({ apiKey: FAKE_OPENAI_KEY });
  });
  after(async () => {
    for (const gateway of started) await gateway.stop();
    await fake?.close();
    await scratch?.drop();
  });

  it('submits the job once upstream and bills it once', async () => {
    const first = await startGatewayProcess(env(), { openai: fake.url });
    started.push(first);
    const { orgId, secret } = await first.admin.organizationWithKey({ credits: '1' });
    const held = gate();
    fake.enqueue({ path: '/v1/videos', holdUntil: held.promise, video: { manual: true } });
    const created = await fetch(`${first.url}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'quick/sora-2', prompt: 'a lighthouse at dawn' }),
    });
    expect(created.status).to.equal(200);
    const videoId = ((await created.json()) as { id: string }).id;
    await eventually(async () => expect(fake.requests.filter((request) => request.path === '/v1/videos')).to.have.length(1));

    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    held.open(); // the provider takes the job, and answers a worker that is no more
    await eventually(async () => expect(fake.videos.created).to.equal(1));

    const second = await startGatewayProcess(env(), { openai: fake.url });
    started.push(second);
    const read = () => fetch(`${second.url}/v1/videos/${videoId}`, { headers: { authorization: `Bearer ${secret}` } }).then((answer) => answer.json() as Promise<{ status: string }>);
    await eventually(async () => expect((await read()).status).to.equal('in_progress'), 30_000, 250);
    expect(fake.requests.filter((request) => request.path === '/v1/videos'), 'submitted again, with the same key').to.have.length(2);
    expect(new Set(fake.requests.filter((request) => request.path === '/v1/videos').map((request) => request.headers['idempotency-key'])).size).to.equal(1);
    expect(fake.videos.created, 'one job upstream').to.equal(1);

    fake.videos.complete(fake.videos.ids()[0]!);
    await eventually(async () => expect((await read()).status).to.equal('completed'), 30_000, 250);
    const balance = async () => (await second.admin.ok('GET', `/organizations/${orgId}`)) as { balance_usd: string; reserved_usd: string };
    // charged once: 1.00 − 0.40 USD
    await eventually(async () => expect(await balance()).to.deep.include({ balance_usd: '0.60', reserved_usd: '0.00' }), 15_000, 250);
    const verify = await npmRunAudit(['verify'], { DATABASE_URL: scratch.url });
    expect(verify.code, verify.stdout + verify.stderr).to.equal(0);
  });
});
