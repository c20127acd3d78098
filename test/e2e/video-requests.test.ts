import { expect } from 'chai';
import OpenAI from 'openai';
import { createScratchDatabase } from '../support/databases.js';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';
import { MULTIPART_CONTENT_TYPE, multipartHead, MULTIPART_TAIL, sendRaw } from '../support/multipart-requests.js';

/**
 * `POST /v1/videos` refusals and `DELETE /v1/videos/{id}` on a gateway that runs no video worker
 * (`VIDEO_WORKER=off`), so that its jobs stay queued until the test decides. Every refusal is answered
 * before the reserve and costs nothing; a cancelled job releases its reservation at once. openai/sora-2:
 * seconds 4 or 8, sizes 720x1280 or 1280x720, $0.10 a second (100,000,000 n$).
 */
const MODEL = 'openai/sora-2';

describe('video job requests and cancellation (no worker on this gateway)', function () {
  this.timeout(60_000);
  let harness: GatewayHarness;
  let drop: () => Promise<void>;

  before(async () => {
    const scratch = await createScratchDatabase('video_requests');
    drop = scratch.drop;
    harness = await startGatewayHarness({ DATABASE_URL: scratch.url, VIDEO_WORKER: 'off' });
  });
  after(async () => {
    try {
      await harness?.checkLedger();
    } finally {
      await harness?.close();
      await drop?.();
    }
  });

  const post = (secret: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${harness.gateway.url}/v1/videos`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(async (response) => ({
      status: response.status,
      requestId: response.headers.get('x-request-id'),
      body: (await response.json()) as any,
    }));

  const refusals: Array<[string, Record<string, unknown>, number, string, string | null]> = [
    ['no prompt', { model: MODEL }, 400, 'missing_prompt', 'prompt'],
    ['an empty prompt', { model: MODEL, prompt: ' ' }, 400, 'missing_prompt', 'prompt'],
    ['no model', { prompt: 'a lighthouse' }, 400, 'missing_model', 'model'],
    ['seconds that are not a number', { model: MODEL, prompt: 'a lighthouse', seconds: 'four' }, 400, 'invalid_seconds', 'seconds'],
    ['seconds below zero', { model: MODEL, prompt: 'a lighthouse', seconds: -4 }, 400, 'invalid_seconds', 'seconds'],
    ['seconds outside the model\'s list', { model: MODEL, prompt: 'a lighthouse', seconds: '12' }, 400, 'unsupported_video_parameter', 'seconds'],
    ['a size outside the model\'s list', { model: MODEL, prompt: 'a lighthouse', size: '1792x1024' }, 400, 'unsupported_video_parameter', 'size'],
    ['an aspect ratio the model does not take', { model: MODEL, prompt: 'a lighthouse', aspect_ratio: '16:9' }, 400, 'unsupported_video_parameter', 'aspect_ratio'],
    ['an input_reference', { model: MODEL, prompt: 'a lighthouse', input_reference: { image_url: 'https://example.com/a.png' } }, 400, 'unsupported_video_parameter', 'input_reference'],
    ['a text model', { model: 'openai/gpt-4o-mini', prompt: 'a lighthouse' }, 400, 'model_category_mismatch', 'model'],
    ['a model not in the catalog', { model: 'openai/sora-9', prompt: 'a lighthouse' }, 404, 'model_not_found', 'model'],
  ];
  for (const [what, body, status, code, param] of refusals) {
    it(`refuses ${what} with ${status} ${code}, charging nothing`, async () => {
      const { orgId, secret } = await harness.customer('1');
      const answer = await post(secret, body);
      expect(answer.status).to.equal(status);
      expect(answer.body.error).to.deep.include({ code, param });
      expect(await harness.settledMoney(orgId)).to.deep.equal({ balance: 1_000_000_000n, reserved: 0n });
    });
  }

  it('refuses X-PII-Masking: on (nothing there to mask), and a balance that does not cover the seconds', async () => {
    const { secret } = await harness.customer('0.5');
    const masked = await post(secret, { model: MODEL, prompt: 'a lighthouse' }, { 'x-pii-masking': 'on' });
    expect([masked.status, masked.body.error.code]).to.deep.equal([400, 'pii_masking_unsupported_endpoint']);
    // 8 s × 100,000,000 = 800,000,000 n$ > 500,000,000 n$
    const poor = await post(secret, { model: MODEL, prompt: 'a lighthouse', seconds: 8 });
    expect([poor.status, poor.body.error.code]).to.deep.equal([402, 'insufficient_funds']);
  });

  it('refuses a multipart body with an input_reference file, and takes one without', async () => {
    const { secret } = await harness.customer('1');
    const fields = { model: MODEL, prompt: 'a lighthouse', seconds: '4' };
    const withFile = Buffer.concat([multipartHead(fields, 'ref.png', 'image/png').toString().replace('name="file"', 'name="input_reference"'), Buffer.from('PNG'), MULTIPART_TAIL].map((part) => Buffer.from(part)));
    const refused = await sendRaw(harness.gateway.url, '/v1/videos', { authorization: `Bearer ${secret}`, 'content-type': MULTIPART_CONTENT_TYPE }, [withFile]);
    expect([refused.status, refused.json.error.code, refused.json.error.param]).to.deep.equal([400, 'unsupported_video_parameter', 'input_reference']);
    const boundary = MULTIPART_CONTENT_TYPE.split('boundary=')[1]!;
    const plain = `${Object.entries(fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('')}--${boundary}--\r\n`;
    const taken = await sendRaw(harness.gateway.url, '/v1/videos', { authorization: `Bearer ${secret}`, 'content-type': MULTIPART_CONTENT_TYPE }, [Buffer.from(plain)]);
    expect(taken.status).to.equal(200);
    expect(taken.json).to.deep.include({ object: 'video', status: 'queued', seconds: '4' });
    await cancel(secret, taken.json.id);
  });

  it('cancels a queued job: failed with cancelled, its reservation released, and a second cancel changes nothing', async () => {
    const { orgId, secret } = await harness.customer('1');
    const created = await post(secret, { model: MODEL, prompt: 'a lighthouse', seconds: 8 });
    expect(created.status).to.equal(200);
    expect(created.requestId).to.equal(created.body.id);
    // 8 s × 100,000,000 n$ reserved
    expect(await harness.gateway.accounts.balance(orgId)).to.deep.include({ reserved: 800_000_000n });
    const client = new OpenAI({ apiKey: secret, baseURL: `${harness.gateway.url}/v1`, maxRetries: 0 });
    expect(await client.videos.delete(created.body.id)).to.deep.equal({ id: created.body.id, object: 'video.deleted', deleted: true });
    const cancelled = await client.videos.retrieve(created.body.id);
    expect(cancelled).to.deep.include({ status: 'failed', error: { code: 'cancelled', message: 'the job was cancelled before it was passed to the provider' } });
    expect(await harness.gateway.accounts.balance(orgId)).to.deep.equal({ balance: 1_000_000_000n, reserved: 0n, available: 1_000_000_000n });
    expect((await client.videos.delete(created.body.id)).deleted).to.equal(true);
    expect(harness.openai.requests.filter((request) => request.path === '/v1/videos')).to.have.length(0);
  });

  it("answers another organization's job, and one that does not exist, with 404 video_not_found on every route", async () => {
    const owner = await harness.customer('1');
    const stranger = await harness.customer('1');
    const created = await post(owner.secret, { model: MODEL, prompt: 'a lighthouse' });
    for (const id of [created.body.id, 'video_doesnotexist']) {
      for (const [method, path] of [['GET', `/v1/videos/${id}`], ['GET', `/v1/videos/${id}/content`], ['DELETE', `/v1/videos/${id}`]] as const) {
        const answer = await fetch(`${harness.gateway.url}${path}`, { method, headers: { authorization: `Bearer ${stranger.secret}` } });
        expect(answer.status, `${method} ${path}`).to.equal(404);
        expect(((await answer.json()) as any).error.code).to.equal('video_not_found');
      }
    }
    const listed = await fetch(`${harness.gateway.url}/v1/videos`, { headers: { authorization: `Bearer ${stranger.secret}` } });
    expect(((await listed.json()) as any).data).to.deep.equal([]);
    await cancel(owner.secret, created.body.id);
  });

  it('answers the file of an unfinished job with 400 video_not_ready', async () => {
    const { secret } = await harness.customer('1');
    const created = await post(secret, { model: MODEL, prompt: 'a lighthouse' });
    const answer = await fetch(`${harness.gateway.url}/v1/videos/${created.body.id}/content`, { headers: { authorization: `Bearer ${secret}` } });
    expect(answer.status).to.equal(400);
    expect(((await answer.json()) as any).error).to.deep.include({ code: 'video_not_ready', type: 'invalid_request_error' });
    await cancel(secret, created.body.id);
  });

  it('lists the organization\'s jobs newest first, a page at a time, as the openai package pages them', async () => {
    const { secret } = await harness.customer('5');
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) ids.push((await post(secret, { model: MODEL, prompt: `take ${index}` })).body.id);
    const client = new OpenAI({ apiKey: secret, baseURL: `${harness.gateway.url}/v1`, maxRetries: 0 });
    // the read model follows the log: wait until it has all five
    const seen: string[] = [];
    for (let attempt = 0; attempt < 100 && seen.length < 5; attempt++) {
      seen.length = 0;
      for await (const video of client.videos.list({ limit: 2 })) seen.push(video.id);
      if (seen.length < 5) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen).to.deep.equal([...ids].reverse());
    const first = await client.videos.list({ limit: 2 });
    expect(first.data.map((video) => video.id)).to.deep.equal([ids[4], ids[3]]);
    expect(first.has_more).to.equal(true);
    for (const id of ids) await cancel(secret, id);
  });

  async function cancel(secret: string, id: string): Promise<void> {
    const answer = await fetch(`${harness.gateway.url}/v1/videos/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${secret}` } });
    expect(answer.status).to.equal(200);
  }
});
