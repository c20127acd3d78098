import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { AdminClient } from '../support/admin-client.js';
import { testDatabaseUrl } from '../support/databases.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../ops/fake-providers/fake-anthropic-provider.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../ops/fake-providers/fake-openai-provider.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { generatedBytes, MULTIPART_CONTENT_TYPE, MULTIPART_TAIL, multipartHead, sendRaw } from '../support/multipart-requests.js';

/**
 * A transcription at the size limit goes through a gateway process without the upload ever being held in
 * memory: the file is spooled to disk as it arrives and streamed from there to the provider.
 *
 * What is asserted is what the gateway holds on to: its JS heap and Buffer memory (`arrayBuffers`, which
 * Node counts as Buffers are allocated and freed; V8's `external` figure lags behind frees) after a full
 * collection, taken while the provider holds its answer (the whole upload has passed through by then).
 * An upload kept in memory would add its 26 MiB there. The peak of resident memory (RSS, read from the OS) is printed, not
 * asserted: the chunks that pass through are garbage that V8 frees lazily (it starts a collection once
 * Buffer memory has grown by about 64 MiB), so it moves with the collector's timing (+22 to +51 MiB in
 * runs here), not with what the gateway keeps.
 */
const MiB = 1024 * 1024;
const WHISPER = 'openai/whisper-1';

async function eventuallyTrue(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function residentBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((entry) => entry.startsWith('VmRSS:'))!;
  return Number(/(\d+)/.exec(line)![1]) * 1024;
}

describe('a 26 MiB transcription', function () {
  this.timeout(120_000);
  let openai: FakeOpenAi;
  let anthropic: FakeAnthropic;
  let gateway: GatewayProcess;
  let secret: string;

  before(async () => {
    openai = await startFakeOpenAi({});
    anthropic = await startFakeAnthropic({});
    gateway = await startGatewayProcess({ DATABASE_URL: testDatabaseUrl() }, { openai: openai.url, anthropic: anthropic.url }, { probeEventLoop: true });
    ({ secret } = await new AdminClient(gateway.url).organizationWithKey({ credits: '5' }));
  });
  after(async () => {
    await gateway?.stop();
    await openai?.close();
    await anthropic?.close();
  });

  const transcribe = (fileSize: number) => {
    const head = multipartHead({ model: WHISPER });
    const body = (function* () {
      yield head;
      yield* generatedBytes(fileSize);
      yield MULTIPART_TAIL;
    })();
    return sendRaw(gateway.url, '/v1/audio/transcriptions', { authorization: `Bearer ${secret}`, 'content-type': MULTIPART_CONTENT_TYPE }, body);
  };

  it('passes, with the gateway holding none of the upload in memory', async () => {
    // first use of the path (JIT, lazily loaded modules) is not the upload's
    expect((await transcribe(64 * 1024)).status).to.equal(200);
    const retainedBefore = await gateway.retainedAfterGc();
    const pid = gateway.child.pid!;
    const residentBefore = residentBytes(pid);
    let residentPeak = residentBefore;
    const sampler = setInterval(() => (residentPeak = Math.max(residentPeak, residentBytes(pid))), 5);

    let release!: () => void;
    openai.enqueue({ path: '/v1/audio/transcriptions', holdUntil: new Promise<void>((resolve) => (release = resolve)) });
    // the whole body (form framing included) just under the 26 MiB limit
    const fileSize = 26 * MiB - 1024;
    const answer = transcribe(fileSize);
    await eventuallyTrue(() => openai.requests.length > 0 && (openai.lastRequest!.body as { file?: { size: number } }).file?.size === fileSize);
    // Held means still there a moment later: the smaller of two readings 300 ms apart, so that something
    // passing through the process at the first reading is not taken for the upload.
    const firstReading = await gateway.retainedAfterGc();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const retainedDuring = Math.min(firstReading, await gateway.retainedAfterGc());
    release();
    const done = await answer.finally(() => clearInterval(sampler));
    expect(done.status, done.text).to.equal(200);

    const retained = retainedDuring - retainedBefore;
    const resident = residentPeak - residentBefore;
    console.log(`      26 MiB upload: retained ${(retained / MiB).toFixed(1)} MiB, resident peak +${(resident / MiB).toFixed(1)} MiB`);
    expect(retained, 'held in memory while the provider works').to.be.below(2 * MiB);
  });
});
