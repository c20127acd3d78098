import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { startTestGateway } from '../support/test-gateway.js';
import { testRedisUrl } from '../support/databases.js';
import { AdminClient } from '../support/admin-client.js';

type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

describe('foundation over HTTP', () => {
  let gateway: TestGateway;
  let secret: string;
  before(async () => {
    gateway = await startTestGateway();
    ({ secret } = await new AdminClient(gateway.url).organizationWithKey());
  });
  after(async () => {
    await gateway.dispose();
  });

  it('answers /healthz', async () => {
    const response = await fetch(`${gateway.url}/healthz`);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({ status: 'ok' });
  });

  it('puts a fresh gen- request id on every response and ignores the client one', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${gateway.url}/healthz`, { headers: { 'X-Request-Id': 'gen-chosen-by-client' } });
      const id = response.headers.get('x-request-id')!;
      expect(id).to.match(/^gen-[0-9A-Za-z]{24}$/);
      ids.add(id);
    }
    expect(ids.size).to.equal(5);
  });

  it('lists the catalog as an OpenAI model list with prices and categories', async () => {
    const response = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
    expect(response.status).to.equal(200);
    const body = (await response.json()) as { object: string; data: Array<Record<string, unknown>> };
    expect(body.object).to.equal('list');
    const mini = body.data.find((model) => model.id === 'openai/gpt-4o-mini')!;
    expect(mini).to.deep.include({ object: 'model', owned_by: 'openai', category: 'text', context_length: 128000, max_output_tokens: 16384 });
    expect(mini.created).to.be.a('number');
    expect(mini.pricing).to.deep.equal({ input_per_mtok: '0.15', output_per_mtok: '0.60', cached_input_per_mtok: '0.075', pii_masking_fee: '0.002' });
    expect(mini.capabilities).to.deep.equal(['tools', 'vision', 'prompt_cache']);
    const video = body.data.find((model) => model.id === 'openai/sora-2')!;
    expect(video).to.deep.include({ category: 'video', max_output_tokens: null });
    expect(video.video).to.deep.equal({ seconds: [4, 8], sizes: ['720x1280', '1280x720'], aspect_ratios: [] });
  });

  it('answers an unknown route with 404 in the error shape, with a request id', async () => {
    const response = await fetch(`${gateway.url}/v1/nothing-here`);
    expect(response.status).to.equal(404);
    expect(response.headers.get('x-request-id')).to.match(/^gen-/);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body.error).to.include({ type: 'invalid_request_error', code: 'route_not_found' });
  });

  it('refuses a body declared larger than 32 MiB at once, without reading it', async () => {
    const size = 33 * 1024 * 1024;
    const { status, body, headers } = await new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
      const req = httpRequest(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(size) },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode!, body: text, headers: res.headers });
          req.destroy(); // we never send the 33 MiB
        });
      });
      req.on('error', reject);
      req.write('{"model":');
    });
    expect(status).to.equal(413);
    expect(headers['x-request-id']).to.match(/^gen-/);
    expect(JSON.parse(body).error).to.include({ type: 'invalid_request_error', code: 'request_too_large' });
  });

  it('refuses a 33 MiB body sent in full with 413 without the memory growing by its size', async () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (!gc) throw new Error('run with --expose-gc (set in .mocharc.cjs)');
    gc();
    const baseline = process.memoryUsage().arrayBuffers;
    let peak = baseline;
    const sampler = setInterval(() => {
      gc();
      peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    }, 5);
    const chunk = Buffer.alloc(64 * 1024, 0x20); // one buffer, written again and again
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const total = 33 * 1024 * 1024;
        const req = httpRequest(`${gateway.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': String(total) },
        });
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        let written = 0;
        const pump = () => {
          while (written < total) {
            written += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          req.end();
        };
        pump();
      });
      expect(status).to.equal(413);
    } finally {
      clearInterval(sampler);
    }
    const growth = peak - baseline;
    expect(growth, `arrayBuffers grew by ${(growth / 1024 / 1024).toFixed(1)} MiB`).to.be.lessThan(8 * 1024 * 1024);
  });

  it('refuses a chunked body once it passes 32 MiB, discarding the rest', async () => {
    // Without Content-Length the size is known only while reading: the body is held up to the limit,
    // then dropped, and the rest of the upload is read and discarded.
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const status = await new Promise<number>((resolve, reject) => {
      // with a key: the body is read once the caller is known
      const req = httpRequest(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` } });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      let written = 0;
      const pump = () => {
        while (written < 40 * 1024 * 1024) {
          written += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(status).to.equal(413);
  });

  it('accepts a body just under the limit', async () => {
    // No JSON route consumes it yet at this path, so it reaches the 404; the point is: not 413.
    const body = Buffer.alloc(31 * 1024 * 1024, 0x20);
    const response = await fetch(`${gateway.url}/v1/not-a-route`, { method: 'POST', body });
    expect(response.status).to.equal(404);
  });

  it('is ready when Postgres and Redis answer', async () => {
    const ready = await startTestGateway({ REDIS_URL: testRedisUrl() });
    try {
      const response = await fetch(`${ready.url}/readyz`);
      expect(response.status).to.equal(200);
      expect(await response.json()).to.deep.equal({ status: 'ready', checks: { database: 'ok', redis: 'ok', jobs: 'ok' } });
    } finally {
      await ready.dispose();
    }
  });
  // When Redis or Postgres stops answering: test/e2e/redis-outage.test.ts and postgres-outage.test.ts,
  // with the gateway in a child process so that it cannot stall this process.
});
