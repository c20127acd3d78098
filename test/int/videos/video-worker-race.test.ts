import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { CatalogStore } from '../../../src/catalog/catalog-store.js';
import { systemClock } from '../../../src/clock.js';
import { UndiciProviderClient } from '../../../src/providers/undici-provider-client.js';
import { VideoJobStore } from '../../../src/videos/video-job-store.js';
import { VideoProvider } from '../../../src/videos/video-provider.js';
import { VideoWorker } from '../../../src/videos/video-worker.js';
import { newId } from '../../../src/ids/random-id.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../../ops/fake-providers/fake-openai-provider.js';
import { gate } from '../../e2e/money-rules/money-rules-kit.js';
import { openPipelineCore, type PipelineCore } from '../../support/pipeline-core.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';
import { catalogFor, FAKE_OPENAI_KEY } from '../../support/test-gateway.js';

/**
 * Two video workers (two instances) on one job at the same moment, on a real Postgres event store and a
 * fake provider over HTTP: the job is submitted once and billed once, whatever the interleaving, because
 * every transition is decided on the job's stream with its expected revision.
 * openai/sora-2 at $0.10 a second: 4 s = 400,000,000 n$.
 */
describe('two video workers racing for one job (real Postgres, real HTTP)', function () {
  this.timeout(60_000);
  let pipeline: PipelineCore;
  let fake: FakeOpenAi;
  let directory: string;
  let workers: VideoWorker[];
  let jobs: VideoJobStore;
  const providers = new UndiciProviderClient();

  before(async () => {
    fake = await startFakeOpenAi({ apiKey: FAKE_OPENAI_KEY });
    pipeline = await openPipelineCore('video_race', new ScriptedProvider());
    directory = mkdtempSync(join(tmpdir(), 'gw-video-race-'));
    const catalog = await CatalogStore.open(catalogFor(directory, { openai: fake.url }));
    jobs = new VideoJobStore(pipeline.core.store, systemClock);
    const worker = () =>
      new VideoWorker({
        jobs,
        accounts: pipeline.core.accounts,
        directory: pipeline.core.directory,
        catalog,
        prices: pipeline.deps.prices,
        provider: new VideoProvider(providers),
        clock: systemClock,
        logger: pino({ level: 'silent' }),
        listPending: async () => [],
      });
    workers = [worker(), worker()];
  });
  after(async () => {
    await providers.close();
    await pipeline?.close();
    await fake?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('submits once and bills once when both advance the job together, at every step', async () => {
    const { orgId, keyId } = await pipeline.customer(1_000_000_000n);
    const videoId = newId('video');
    const owner = { keyId, employeeId: null, teamId: null, spaceId: null };
    await pipeline.core.accounts.execute(
      orgId,
      { type: 'ReserveFunds', reservationId: videoId, endpoint: 'videos', owner, model: 'openai/sora-2', category: 'video', amount: 400_000_000n, price: { version: 1, serviceTier: null }, deadline: new Date(Date.now() + 3_600_000), limits: {}, accessRevisions: {} },
      videoId,
    );
    await jobs.execute(videoId, { type: 'QueueVideoJob', job: { videoId, orgId, keyId, model: 'openai/sora-2', prompt: 'a race', seconds: 4, size: '720x1280', aspectRatio: null, priceVersion: 1 } }, videoId);

    // both reach the provider's door while the first submission is held there
    const held = gate();
    fake.enqueue({ path: '/v1/videos', holdUntil: held.promise, video: { manual: true } });
    const submitting = Promise.all(workers.map((worker) => worker.advance(videoId)));
    await new Promise((resolve) => setTimeout(resolve, 300));
    held.open();
    await submitting;
    expect(fake.videos.created, 'one job at the provider').to.equal(1);

    fake.videos.complete(fake.videos.ids().at(-1)!);
    await Promise.all(workers.map((worker) => worker.advance(videoId)));
    await Promise.all(workers.map((worker) => worker.advance(videoId)));

    const events = (await pipeline.core.store.readStream(`video-${videoId}`)).map((event) => event.type);
    expect(events).to.deep.equal(['VideoJobQueued', 'VideoJobSubmissionStarted', 'VideoJobSubmitted', 'VideoJobCompleted', 'VideoJobBilled']);
    const account = (await pipeline.core.store.readStream(`account-${orgId}`)).map((event) => event.type);
    expect(account).to.deep.equal(['CreditsAdded', 'FundsReserved', 'ReservationSettled']);
    // 1,000,000,000 − 400,000,000
    expect(await pipeline.core.accounts.balance(orgId)).to.deep.equal({ balance: 600_000_000n, reserved: 0n, available: 600_000_000n });
  });
});
