import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { expect } from 'chai';
import { useGatewayHarness } from '../support/gateway-harness.js';
import { generatedBytes, MULTIPART_CONTENT_TYPE, MULTIPART_TAIL, multipartHead, postMultipart, sendRaw, speechWav } from '../support/multipart-requests.js';

/**
 * Every refusal of a transcription comes before the reserve: the spec's status and code, nothing charged,
 * the provider never called, and no spooled upload left behind.
 */
const WHISPER = 'openai/whisper-1';
const PATH = '/v1/audio/transcriptions';
const MiB = 1024 * 1024;
const spooled = () => readdirSync(tmpdir()).filter((name) => name.startsWith('gateway-upload-'));

describe('POST /v1/audio/transcriptions refusals', () => {
  const current = useGatewayHarness();
  const wav = speechWav(1);
  let customer: { orgId: string; secret: string };
  let providerCalls: number;
  let spooledBefore: string[];
  beforeEach(async () => {
    customer = await current().customer('1');
    providerCalls = current().openai.requests.length;
    spooledBefore = spooled();
  });
  afterEach(async () => {
    expect(current().openai.requests.length, 'the provider was not called').to.equal(providerCalls);
    expect(await current().settledMoney(customer.orgId), 'nothing was charged').to.deep.equal({ balance: 1_000_000_000n, reserved: 0n });
    expect(spooled().filter((name) => !spooledBefore.includes(name)), 'no spooled upload is left').to.deep.equal([]);
  });

  const refused = (answer: { status: number; json: { error?: { code?: string; param?: string | null } } }, status: number, code: string) => {
    expect(answer.status, JSON.stringify(answer.json)).to.equal(status);
    expect(answer.json.error?.code).to.equal(code);
  };
  /** `null`: a form without a file. */
  const post = (fields: Record<string, string>, file: Buffer | null = wav, headers: Record<string, string> = {}) =>
    postMultipart(current().gateway.url, PATH, customer.secret, fields, file ?? undefined, headers);

  it('a JSON body: 400 invalid_multipart', async () => {
    const answer = await sendRaw(current().gateway.url, PATH, { authorization: `Bearer ${customer.secret}`, 'content-type': 'application/json' }, [Buffer.from(JSON.stringify({ model: WHISPER }))]);
    refused(answer, 400, 'invalid_multipart');
  });

  it('a body that is not multipart despite its header: 400 invalid_multipart', async () => {
    const answer = await sendRaw(current().gateway.url, PATH, { authorization: `Bearer ${customer.secret}`, 'content-type': MULTIPART_CONTENT_TYPE }, [Buffer.from('this is not a form')]);
    refused(answer, 400, 'invalid_multipart');
  });

  it('a form cut off in the middle of the file: 400 invalid_multipart', async () => {
    const answer = await sendRaw(current().gateway.url, PATH, { authorization: `Bearer ${customer.secret}`, 'content-type': MULTIPART_CONTENT_TYPE }, [
      multipartHead({ model: WHISPER }),
      wav.subarray(0, 1000),
    ]);
    refused(answer, 400, 'invalid_multipart');
  });

  it('no file: 400 invalid_multipart naming the field', async () => {
    const answer = await post({ model: WHISPER }, null);
    refused(answer, 400, 'invalid_multipart');
    expect(answer.json.error.param).to.equal('file');
  });

  it('an empty file: 400 invalid_multipart', async () => {
    refused(await post({ model: WHISPER }, Buffer.alloc(0)), 400, 'invalid_multipart');
  });

  it('no model: 400 invalid_request', async () => {
    const answer = await post({});
    refused(answer, 400, 'invalid_request');
    expect(answer.json.error.param).to.equal('model');
  });

  it('a model not in the catalog: 404 model_not_found', async () => {
    refused(await post({ model: 'openai/whisper-9' }), 404, 'model_not_found');
  });

  for (const model of ['openai/gpt-4o-mini', 'openai/text-embedding-3-small', 'openai/gpt-image-1', 'openai/sora-2']) {
    it(`a model that is not a speech model (${model}): 400 model_category_mismatch`, async () => {
      refused(await post({ model }), 400, 'model_category_mismatch');
    });
  }

  it('a response_format the gateway does not know: 400 invalid_request', async () => {
    refused(await post({ model: WHISPER, response_format: 'pdf' }), 400, 'invalid_request');
  });

  it('stream=true: 400 invalid_request (transcriptions are answered whole)', async () => {
    refused(await post({ model: WHISPER, stream: 'true' }), 400, 'invalid_request');
  });

  it('X-PII-Masking: on: 400 pii_masking_unsupported_endpoint', async () => {
    refused(await post({ model: WHISPER }, wav, { 'x-pii-masking': 'on' }), 400, 'pii_masking_unsupported_endpoint');
  });

  it('no key: 401 invalid_api_key', async () => {
    const answer = await sendRaw(current().gateway.url, PATH, { 'content-type': MULTIPART_CONTENT_TYPE }, [multipartHead({ model: WHISPER }), wav, MULTIPART_TAIL]);
    refused(answer, 401, 'invalid_api_key');
  });

  // In both, the client sends part of the body and leaves the request open: the answer can only come
  // from a gateway that refused before it read the body whole.
  it('a body declared as 27 MiB: 413 request_too_large before the body is read', async () => {
    const answer = await sendRaw(
      current().gateway.url,
      PATH,
      { authorization: `Bearer ${customer.secret}`, 'content-type': MULTIPART_CONTENT_TYPE, 'content-length': String(27 * MiB) },
      [multipartHead({ model: WHISPER }), ...generatedBytes(MiB)],
      { end: false },
    );
    refused(answer, 413, 'request_too_large');
  });

  it('a chunked body that grows past 26 MiB: 413 request_too_large as soon as it does', async () => {
    const answer = await sendRaw(
      current().gateway.url,
      PATH,
      { authorization: `Bearer ${customer.secret}`, 'content-type': MULTIPART_CONTENT_TYPE },
      (function* () {
        yield multipartHead({ model: WHISPER });
        yield* generatedBytes(27 * MiB);
      })(),
      { end: false },
    );
    refused(answer, 413, 'request_too_large');
  });
});
