import { expect } from 'chai';
import OpenAI from 'openai';
import { useGatewayHarness } from '../support/gateway-harness.js';

/**
 * Embeddings and image generation through the official `openai` package: two declarations on the one
 * pipeline, billed like every other request (reserve before, settle from the provider's usage after).
 * Prices of the test catalog: text-embedding-3-small $0.02 per million input tokens; gpt-image-1 $0.04 an image.
 */
const EMBEDDINGS = 'openai/text-embedding-3-small';
const IMAGES = 'openai/gpt-image-1';
const USD = 1_000_000_000n;

describe('embeddings and image generation', () => {
  const current = useGatewayHarness();

  const client = (secret: string) => new OpenAI({ apiKey: secret, baseURL: `${current().gateway.url}/v1`, maxRetries: 0 });
  const refusal = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      return error as InstanceType<typeof OpenAI.APIError>;
    }
    throw new Error('the request was not refused');
  };

  describe('POST /v1/embeddings', () => {
    it('answers base64 (the SDK default), decoded by the SDK, and charges the reported tokens', async () => {
      const { orgId, secret } = await current().customer('1');
      current().openai.enqueue({ path: '/v1/embeddings', usage: { inputTokens: 1_000, outputTokens: 0 } });
      const result = await client(secret).embeddings.create({ model: EMBEDDINGS, input: 'The food was delicious.' });
      expect(current().openai.lastRequest!.body).to.include({ encoding_format: 'base64', model: 'text-embedding-3-small' });
      expect(result.model).to.equal(EMBEDDINGS);
      expect(result.data).to.have.length(1);
      // the fake's first vector: sin(d + 1) rounded to 4 decimals, as float32
      expect(result.data[0]!.embedding[0]).to.be.closeTo(0.8415, 1e-6);
      expect(result.usage.prompt_tokens).to.equal(1_000);
      // 1,000 tokens at $0.02/M = $0.00002 = 20,000 nanodollars
      expect(await current().settledMoney(orgId)).to.deep.equal({ balance: USD - 20_000n, reserved: 0n });
    });

    it('answers floats when asked, for several inputs and token arrays', async () => {
      const { orgId, secret } = await current().customer('1');
      current().openai.enqueue({ path: '/v1/embeddings', usage: { inputTokens: 3_000, outputTokens: 0 } });
      const result = await client(secret).embeddings.create({ model: EMBEDDINGS, input: ['one', 'two', 'three'], encoding_format: 'float', dimensions: 8 });
      expect(result.data.map((item) => item.index)).to.deep.equal([0, 1, 2]);
      expect(result.data[1]!.embedding).to.have.length(8);
      expect(current().openai.lastRequest!.body).to.include({ dimensions: 8, encoding_format: 'float' });
      // 3,000 tokens at $0.02/M = $0.00006
      expect(await current().settledMoney(orgId)).to.deep.equal({ balance: USD - 60_000n, reserved: 0n });
      const tokens = await client(secret).embeddings.create({ model: EMBEDDINGS, input: [[1, 2, 3], [4, 5]], encoding_format: 'float' });
      expect(tokens.data).to.have.length(2);
    });

    it('converts an answer in the other encoding: floats to base64 for the SDK, base64 to floats when asked', async () => {
      const { secret } = await current().customer('1');
      // a server that ignores encoding_format: floats where the SDK asked base64 …
      current().openai.enqueue({ path: '/v1/embeddings', embeddingEncoding: 'float' });
      const raw = await fetch(`${current().gateway.url}/v1/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: EMBEDDINGS, input: 'x', encoding_format: 'base64' }),
      });
      const [first] = ((await raw.json()) as { data: Array<{ embedding: unknown }> }).data;
      expect(first!.embedding, 'base64 on the wire, as asked').to.be.a('string');
      expect(Buffer.from(first!.embedding as string, 'base64').readFloatLE(4)).to.be.closeTo(0.9093, 1e-6); // sin(2), as float32
      current().openai.enqueue({ path: '/v1/embeddings', embeddingEncoding: 'float' });
      const decoded = await client(secret).embeddings.create({ model: EMBEDDINGS, input: 'x' });
      expect(decoded.data[0]!.embedding[1]).to.be.closeTo(0.9093, 1e-6);
      // … and base64 where floats were asked
      current().openai.enqueue({ path: '/v1/embeddings', embeddingEncoding: 'base64' });
      const floats = await client(secret).embeddings.create({ model: EMBEDDINGS, input: 'x', encoding_format: 'float' });
      expect(floats.data[0]!.embedding).to.be.an('array');
      expect(floats.data[0]!.embedding[1]).to.be.closeTo(0.9093, 1e-6);
    });

    for (const [name, input] of [
      ['an empty string', ''],
      ['an empty array', []],
      ['an array with an empty string', ['a', '']],
    ] as const) {
      it(`refuses ${name} with 400 invalid_request, free of charge`, async () => {
        const { orgId, secret } = await current().customer('1');
        const error = await refusal(client(secret).embeddings.create({ model: EMBEDDINGS, input: input as string }));
        expect(error.status).to.equal(400);
        expect(error.error).to.deep.include({ code: 'invalid_request', param: 'input' });
        expect(await current().settledMoney(orgId)).to.deep.equal({ balance: USD, reserved: 0n });
      });
    }

    it('refuses X-PII-Masking: on with 400 pii_masking_unsupported_endpoint, and takes off', async () => {
      const { orgId, secret } = await current().customer('1');
      const error = await refusal(client(secret).embeddings.create({ model: EMBEDDINGS, input: 'x' }, { headers: { 'X-PII-Masking': 'on' } }));
      expect(error.status).to.equal(400);
      expect(error.error).to.deep.include({ code: 'pii_masking_unsupported_endpoint' });
      expect(await current().settledMoney(orgId)).to.deep.equal({ balance: USD, reserved: 0n });
      await client(secret).embeddings.create({ model: EMBEDDINGS, input: 'x' }, { headers: { 'X-PII-Masking': 'off' } });
    });
  });

  describe('POST /v1/images/generations', () => {
    it('answers b64_json for n = 1 and charges one image', async () => {
      const { orgId, secret } = await current().customer('1');
      const result = await client(secret).images.generate({ model: IMAGES, prompt: 'a red square', size: '1024x1024' });
      expect(result.data).to.have.length(1);
      expect(result.data![0]!.b64_json).to.be.a('string');
      expect(current().openai.lastRequest!.body).to.include({ model: 'gpt-image-1', size: '1024x1024' });
      // 1 image at $0.04
      expect(await current().settledMoney(orgId)).to.deep.equal({ balance: USD - 40_000_000n, reserved: 0n });
    });

    it('charges the images that came back when the provider made fewer than n', async () => {
      const { orgId, secret } = await current().customer('1');
      current().openai.enqueue({ path: '/v1/images/generations', images: ['aW1hZ2Ux', 'aW1hZ2Uy'] });
      const result = await client(secret).images.generate({ model: IMAGES, prompt: 'three cats', n: 3 });
      expect(result.data).to.have.length(2);
      // 2 images at $0.04 = $0.08, not the 3 asked for
      expect(await current().settledMoney(orgId)).to.deep.equal({ balance: USD - 80_000_000n, reserved: 0n });
    });

    const refusals: Array<[string, Record<string, unknown>, number, string]> = [
      ['response_format url', { response_format: 'url' }, 400, 'unsupported_response_format'],
      ['stream: true', { stream: true }, 400, 'image_streaming_unsupported'],
      ['n = 0', { n: 0 }, 400, 'invalid_image_count'],
      ['n = 11', { n: 11 }, 400, 'invalid_image_count'],
      ['n = 2.5', { n: 2.5 }, 400, 'invalid_image_count'],
      ['n = "2"', { n: '2' }, 400, 'invalid_image_count'],
      ['n = null', { n: null }, 400, 'invalid_image_count'],
      ['no prompt', { prompt: undefined }, 400, 'missing_prompt'],
      ['a text model', { model: 'openai/gpt-4o-mini' }, 400, 'model_category_mismatch'],
    ];
    for (const [name, change, status, code] of refusals) {
      it(`refuses ${name} with ${status} ${code}, free of charge`, async () => {
        const { orgId, secret } = await current().customer('1');
        const body = JSON.stringify({ model: IMAGES, prompt: 'a cat', ...change });
        const response = await fetch(`${current().gateway.url}/v1/images/generations`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          body,
        });
        expect(response.status).to.equal(status);
        expect(((await response.json()) as { error: { code: string } }).error.code).to.equal(code);
        expect(await current().settledMoney(orgId)).to.deep.equal({ balance: USD, reserved: 0n });
      });
    }
  });
});
