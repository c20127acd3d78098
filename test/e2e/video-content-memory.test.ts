import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { startFakeOpenAi, type FakeOpenAi } from '../../ops/fake-providers/fake-openai-provider.js';
import { createScratchDatabase } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { FAKE_OPENAI_KEY } from '../support/test-gateway.js';

/**
 * The file of a completed video job goes from the provider to the client through a gateway process without
 * being held: 200 MB pass while the gateway's resident memory (read from the OS every 20 ms) grows by less
 * than 50 MB over what it was before the download.
 */
const MB = 1_000_000;
const SIZE = 200 * MB;

function residentBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((entry) => entry.startsWith('VmRSS:'))!;
  return Number(/(\d+)/.exec(line)![1]) * 1024;
}

describe('a 200 MB video file through a gateway process', function () {
  this.timeout(180_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let fake: FakeOpenAi;
  let gateway: GatewayProcess;

  before(async () => {
    scratch = await createScratchDatabase('video_memory');
    fake = await startFakeOpenAi({ apiKey: FAKE_OPENAI_KEY, record: false });
    gateway = await startGatewayProcess({ DATABASE_URL: scratch.url }, { openai: fake.url });
  });
  after(async () => {
    await gateway?.stop();
    await fake?.close();
    await scratch?.drop();
  });

  it('streams it with the resident memory growing by less than 50 MB', async () => {
    const { secret } = await gateway.admin.organizationWithKey({ credits: '1' });
    fake.enqueue({ path: '/v1/videos', video: { completeAfterMs: 0, contentBytes: SIZE } });
    const headers = { authorization: `Bearer ${secret}` };
    const created = (await (await fetch(`${gateway.url}/v1/videos`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'openai/sora-2', prompt: 'a long take' }) })).json()) as { id: string };
    await eventually(async () => expect(((await (await fetch(`${gateway.url}/v1/videos/${created.id}`, { headers })).json()) as { status: string }).status).to.equal('completed'), 20_000, 100);

    const pid = gateway.child.pid!;
    const before = residentBytes(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(pid))), 20);
    let received = 0;
    try {
      const answer = await fetch(`${gateway.url}/v1/videos/${created.id}/content`, { headers });
      expect(answer.headers.get('content-length')).to.equal(String(SIZE));
      for await (const chunk of answer.body!) received += (chunk as Uint8Array).byteLength;
    } finally {
      clearInterval(sampler);
    }
    expect(received).to.equal(SIZE);
    const grown = (peak - before) / MB;
    console.log(`      resident memory: ${(before / MB).toFixed(1)} MB before, ${(peak / MB).toFixed(1)} MB at the peak (+${grown.toFixed(1)} MB) for ${SIZE / MB} MB passed`);
    expect(grown).to.be.lessThan(50);
  });
});
