import { expect } from 'chai';
import OpenAI from 'openai';
import { FAKE_MP4 } from '../../ops/fake-providers/fake-video-jobs.js';
import { createScratchDatabase } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';

/**
 * Video jobs through the official `openai` package (spec 3, 4.3 rule 5): created queued, polled until the
 * provider completes them, downloaded, listed, cancelled, and billed only when delivered. Prices from the
 * test catalog: openai/sora-2 at $0.10 a second = 100,000,000 n$ a second; 4 seconds = 400,000,000 n$.
 * Each suite has a database of its own, so that no other suite's gateway works on its jobs.
 */
const MODEL = 'openai/sora-2';

describe('video jobs through the openai package (real Postgres, the in-process worker)', function () {
  this.timeout(60_000);
  let harness: GatewayHarness;
  let drop: () => Promise<void>;

  before(async () => {
    const scratch = await createScratchDatabase('videos');
    drop = scratch.drop;
    harness = await startGatewayHarness({ DATABASE_URL: scratch.url });
  });
  after(async () => {
    try {
      await harness?.checkLedger();
    } finally {
      await harness?.close();
      await drop?.();
    }
  });

  const client = (secret: string) => new OpenAI({ apiKey: secret, baseURL: `${harness.gateway.url}/v1`, maxRetries: 0 });

  it('creates a queued job, reserves its seconds, completes it, charges the seconds delivered and serves its file', async () => {
    const { orgId, secret } = await harness.customer('1');
    // the provider keeps the job queued until the test completes it
    harness.openai.enqueue({ path: '/v1/videos', video: { manual: true } });
    const { data: created, response } = await client(secret).videos.create({ model: MODEL as 'sora-2', prompt: 'a lighthouse at dawn', seconds: '4' }).withResponse();
    expect(response.headers.get('x-request-id')).to.equal(created.id);
    expect(created).to.deep.include({ object: 'video', model: MODEL, status: 'queued', progress: 0, seconds: '4', size: '720x1280', error: null });
    expect(created.id).to.match(/^video_[0-9A-Za-z]+$/);
    // 4 s × 100,000,000 n$ = 400,000,000 n$ reserved while the job runs
    expect(await harness.gateway.accounts.balance(orgId)).to.deep.include({ reserved: 400_000_000n });
    // held by no instance: a job outlives the instance that took it (its worker may be another), so an
    // instance that stops must not have its job's money released as an orphan's; a chat request is held
    const heldBy = async (org: string) =>
      (await harness.gateway.store.readStream(`account-${org}`)).filter((event) => event.type === 'FundsReserved').map((event) => (event.data as { heldBy: string | null }).heldBy);
    expect(await heldBy(orgId)).to.deep.equal([null]);
    const chatting = await harness.customer('1');
    await client(chatting.secret).chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], max_tokens: 10 });
    expect(await heldBy(chatting.orgId)).to.have.length(1).and.to.satisfy((held: unknown[]) => typeof held[0] === 'string');

    const providerId = await eventually(async () => {
      const ids = harness.openai.videos.ids();
      expect(ids).to.have.length.greaterThan(0);
      return ids.at(-1)!;
    });
    await eventually(async () => expect((await client(secret).videos.retrieve(created.id)).status).to.equal('in_progress'));
    harness.openai.videos.complete(providerId);
    const done = await eventually(async () => {
      const video = await client(secret).videos.retrieve(created.id);
      expect(video.status).to.equal('completed');
      return video;
    }, 10_000);
    expect(done).to.deep.include({ id: created.id, progress: 100, error: null });
    // charged 400,000,000 n$: 1,000,000,000 − 400,000,000
    await eventually(async () => expect(await harness.gateway.accounts.balance(orgId)).to.deep.equal({ balance: 600_000_000n, reserved: 0n, available: 600_000_000n }));

    const file = await client(secret).videos.downloadContent(created.id);
    expect(file.headers.get('content-type')).to.equal('video/mp4');
    expect(Buffer.from(await file.arrayBuffer()).equals(FAKE_MP4)).to.equal(true);

    const page = await client(secret).videos.list();
    expect(page.data.map((video) => video.id)).to.include(created.id);
  });

  it('charges nothing for a job the provider fails', async () => {
    const { orgId, secret } = await harness.customer('1');
    harness.openai.enqueue({ path: '/v1/videos', video: { failAfterMs: 0, failure: { code: 'moderation_blocked', message: 'the prompt was blocked' } } });
    const created = await client(secret).videos.create({ model: MODEL as 'sora-2', prompt: 'something blocked' });
    const failed = await eventually(async () => {
      const video = await client(secret).videos.retrieve(created.id);
      expect(video.status).to.equal('failed');
      return video;
    }, 10_000);
    expect(failed.error?.code).to.equal('provider_error');
    await eventually(async () => expect(await harness.gateway.accounts.balance(orgId)).to.deep.equal({ balance: 1_000_000_000n, reserved: 0n, available: 1_000_000_000n }));
  });

  it('answers byte ranges of the file as video players ask: 206 with Content-Range, and 416 past the end', async () => {
    const { secret } = await harness.customer('1');
    // a file of 1,000,000 bytes; the provider ignores Range, so the gateway cuts the range out itself
    harness.openai.enqueue({ path: '/v1/videos', video: { completeAfterMs: 0, contentBytes: 1_000_000 } });
    const created = await client(secret).videos.create({ model: MODEL as 'sora-2', prompt: 'a lighthouse at dawn' });
    await eventually(async () => expect((await client(secret).videos.retrieve(created.id)).status).to.equal('completed'), 10_000);
    const content = (range?: string) =>
      fetch(`${harness.gateway.url}/v1/videos/${created.id}/content`, { headers: { authorization: `Bearer ${secret}`, ...(range ? { range } : {}) } });
    const whole = await content();
    expect([whole.status, whole.headers.get('content-length'), whole.headers.get('accept-ranges')]).to.deep.equal([200, '1000000', 'bytes']);
    expect((await whole.arrayBuffer()).byteLength).to.equal(1_000_000);
    const part = await content('bytes=500000-500099');
    expect([part.status, part.headers.get('content-range'), part.headers.get('content-length')]).to.deep.equal([206, 'bytes 500000-500099/1000000', '100']);
    // the fake's byte at offset i is i mod 251
    expect([...Buffer.from(await part.arrayBuffer())]).to.deep.equal(Array.from({ length: 100 }, (_, index) => (500_000 + index) % 251));
    const tail = await content('bytes=-10');
    expect([tail.status, tail.headers.get('content-range')]).to.deep.equal([206, 'bytes 999990-999999/1000000']);
    await tail.arrayBuffer();
    const past = await content('bytes=1000000-');
    expect([past.status, past.headers.get('content-range')]).to.deep.equal([416, 'bytes */1000000']);
  });

  it('fails a running job as key_revoked within seconds of its key being revoked, charges nothing and cancels it at the provider', async () => {
    const { orgId, keyId, secret } = await harness.customer('1');
    harness.openai.enqueue({ path: '/v1/videos', video: { manual: true } });
    const created = await client(secret).videos.create({ model: MODEL as 'sora-2', prompt: 'a lighthouse at dawn' });
    const providerId = await eventually(async () => {
      const video = await client(secret).videos.retrieve(created.id);
      expect(video.status).to.equal('in_progress');
      return harness.openai.videos.ids().at(-1)!;
    });
    await harness.admin.ok('POST', `/keys/${keyId}/revoke`);
    const revokedAt = Date.now();
    // the revoked key can no longer read it: another key of the organization does
    const reader = await harness.admin.ok('POST', `/organizations/${orgId}/keys`, { name: 'reader' });
    const failed = await eventually(async () => {
      const video = await client(reader.key).videos.retrieve(created.id);
      expect(video.status).to.equal('failed');
      return video;
    }, 10_000);
    expect(Date.now() - revokedAt, 'within a few seconds').to.be.lessThan(5_000);
    expect(failed.error?.code).to.equal('key_revoked');
    expect(harness.openai.videos.status(providerId), 'cancelled at the provider').to.equal(undefined);
    await eventually(async () => expect(await harness.gateway.accounts.balance(orgId)).to.deep.equal({ balance: 1_000_000_000n, reserved: 0n, available: 1_000_000_000n }));
  });

  it('counts video reservations and charges in the finance audit, the spend report and the metrics', async () => {
    const { orgId, secret } = await harness.customer('1');
    harness.openai.enqueue({ path: '/v1/videos', video: { completeAfterMs: 0 } });
    const created = await client(secret).videos.create({ model: MODEL as 'sora-2', prompt: 'a lighthouse at dawn', seconds: '8' });
    await eventually(async () => expect((await client(secret).videos.retrieve(created.id)).status).to.equal('completed'), 10_000);
    // 8 s × $0.10 = $0.80, in the audit by type once the read models have it
    const audit = (query: string) => fetch(`${harness.gateway.url}/admin/v1/audit?organization_id=${orgId}&format=csv&${query}`, { headers: { authorization: `Bearer ${harness.admin.token}` } }).then((answer) => answer.text());
    await eventually(async () => expect(await audit('group_by=type')).to.equal(`organization_id,type,requests,spend_usd\n${orgId},video,1,0.80\n`));
    const verify = await harness.admin.ok('GET', `/audit/verify?organization_id=${orgId}`);
    expect(verify).to.deep.include({ organizations: 1, mismatches: [] });
    await eventually(async () => {
      const spend = await harness.admin.ok('GET', `/organizations/${orgId}/spend?group_by=type`);
      expect(JSON.stringify(spend)).to.include('"video"').and.include('0.80');
    });
    const metrics = await (await fetch(`${harness.gateway.url}/metrics`, { headers: { authorization: `Bearer ${harness.admin.token}` } })).text();
    expect(metrics).to.match(/^gateway_video_jobs\{status="completed"\} [1-9]\d*$/m);
    expect(metrics).to.match(/^gateway_video_jobs\{status="queued"\} \d+$/m);
    expect(metrics).to.match(/^gateway_video_jobs_unbilled \d+$/m);
  });

  it('rebuilds the video read model from the log into the same records', async () => {
    const rows = () => harness.gateway.database.kysely.withTables<{ video_jobs: Record<string, unknown> }>().selectFrom('video_jobs').selectAll().orderBy('video_id').execute();
    // once the read model has every job of the tests above, billed
    const before = await eventually(async () => {
      const all = await rows();
      expect(all.length).to.be.at.least(4);
      expect(all.filter((row) => row.charged === null)).to.deep.equal([]);
      return all;
    });
    const rebuilt = await harness.admin.ok('POST', '/projections/videos/rebuild');
    expect(rebuilt).to.deep.include({ projection: 'videos' });
    expect(await rows()).to.deep.equal(before);
  });
});

describe('a video job whose key is revoked through another instance', function () {
  this.timeout(60_000);
  let worker: GatewayHarness;
  let other: GatewayHarness;
  let drop: () => Promise<void>;

  before(async () => {
    const scratch = await createScratchDatabase('video_revoke');
    drop = scratch.drop;
    worker = await startGatewayHarness({ DATABASE_URL: scratch.url });
    // takes requests only: the first instance's worker has the job
    other = await startGatewayHarness({ DATABASE_URL: scratch.url, VIDEO_WORKER: 'off' });
  });
  after(async () => {
    try {
      await worker?.checkLedger();
    } finally {
      await other?.close();
      await worker?.close();
      await drop?.();
    }
  });

  it('fails as key_revoked within seconds on the instance that runs the job, and charges nothing', async () => {
    const { orgId, keyId, secret } = await worker.customer('1');
    worker.openai.enqueue({ path: '/v1/videos', video: { manual: true } });
    const client = new OpenAI({ apiKey: secret, baseURL: `${worker.gateway.url}/v1`, maxRetries: 0 });
    const created = await client.videos.create({ model: MODEL as 'sora-2', prompt: 'a lighthouse at dawn' });
    await eventually(async () => expect((await client.videos.retrieve(created.id)).status).to.equal('in_progress'));
    await other.admin.ok('POST', `/keys/${keyId}/revoke`);
    const revokedAt = Date.now();
    const reader = await other.admin.ok('POST', `/organizations/${orgId}/keys`, { name: 'reader' });
    const readerClient = new OpenAI({ apiKey: reader.key, baseURL: `${other.gateway.url}/v1`, maxRetries: 0 });
    const failed = await eventually(async () => {
      const video = await readerClient.videos.retrieve(created.id);
      expect(video.status).to.equal('failed');
      return video;
    }, 10_000);
    expect(Date.now() - revokedAt, 'within a few seconds').to.be.lessThan(5_000);
    expect(failed.error?.code).to.equal('key_revoked');
    await eventually(async () => expect(await worker.gateway.accounts.balance(orgId)).to.deep.equal({ balance: 1_000_000_000n, reserved: 0n, available: 1_000_000_000n }));
  });
});
