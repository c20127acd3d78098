import { expect } from 'chai';
import { useGatewayHarness } from '../support/gateway-harness.js';
import { postText, type ClientFormat } from '../support/text-format-client.js';

const EMAIL = 'jane.doe@example.com';

/**
 * X-PII-Masking as the spec has it (4.1, 4.3 rule 6, 5.6, 7.3.4, 7.4): `on|off|true|false|1|0` in any case,
 * anything else 400; `on` needs the organization's option (403); no header: the organization's setting;
 * `on` where nothing can be masked (an image model on chat completions, embeddings, images, transcriptions)
 * 400; and the answer of every text endpoint says `applied` or `off`, a provider's error and a refusal too.
 */
describe('PII masking: the X-PII-Masking header', function () {
  this.timeout(60_000);
  const harness = useGatewayHarness();
  const body = (format: ClientFormat, model = 'openai/gpt-4o-mini') =>
    format === 'chat'
      ? { model, max_tokens: 50, messages: [{ role: 'user', content: `mail ${EMAIL}` }] }
      : format === 'messages'
        ? { model, max_tokens: 50, messages: [{ role: 'user', content: `mail ${EMAIL}` }] }
        : { model, max_output_tokens: 50, input: `mail ${EMAIL}` };
  const sentOriginal = () => JSON.stringify(harness().openai.lastRequest?.body ?? null).includes(EMAIL);
  const customer = (piiMasking: boolean) => harness().admin.organizationWithKey({ credits: '10', organization: { pii_masking: piiMasking } });

  it('without the option: no header or off/false/0 in any case answer off; on/true/1 in any case is 403; another value 400', async () => {
    const { secret } = await customer(false);
    for (const value of [undefined, 'off', 'OFF', 'false', 'False', '0']) {
      const answer = await postText(harness().gateway.url, 'chat', secret, body('chat'), value === undefined ? {} : { 'X-PII-Masking': value });
      expect(answer.status, String(value)).to.equal(200);
      expect(answer.headers.get('x-pii-masking'), String(value)).to.equal('off');
      expect(sentOriginal(), 'sent as written').to.equal(true);
    }
    for (const value of ['on', 'ON', 'true', 'TRUE', '1']) {
      const answer = await postText(harness().gateway.url, 'chat', secret, body('chat'), { 'X-PII-Masking': value });
      expect([answer.status, answer.body.error.code], value).to.deep.equal([403, 'pii_masking_not_enabled']);
      expect(answer.headers.get('x-pii-masking')).to.equal('off');
    }
    for (const value of ['yes', 'maybe', '2']) {
      const answer = await postText(harness().gateway.url, 'messages', secret, body('messages', 'anthropic/claude-sonnet-4-5'), { 'X-PII-Masking': value });
      expect([answer.status, answer.body.error.type], value).to.deep.equal([400, 'invalid_request_error']);
      expect(answer.body.error.message).to.match(/X-PII-Masking must be one of on, off, true, false, 1, 0/);
      expect(answer.headers.get('x-pii-masking')).to.equal('off');
    }
  });

  it('with the option: no header or on/true/1 in any case mask; off/false/0 in any case do not', async () => {
    const { secret } = await customer(true);
    for (const value of [undefined, 'on', 'On', 'true', 'TRUE', '1']) {
      const answer = await postText(harness().gateway.url, 'chat', secret, body('chat'), value === undefined ? {} : { 'X-PII-Masking': value });
      expect([answer.status, answer.headers.get('x-pii-masking')], String(value)).to.deep.equal([200, 'applied']);
      expect(sentOriginal(), String(value)).to.equal(false);
    }
    for (const value of ['off', 'Off', 'false', '0']) {
      const answer = await postText(harness().gateway.url, 'chat', secret, body('chat'), { 'X-PII-Masking': value });
      expect([answer.status, answer.headers.get('x-pii-masking')], value).to.deep.equal([200, 'off']);
      expect(sentOriginal(), value).to.equal(true);
    }
  });

  it('says applied on every answer of the three text endpoints: success, a stream, a provider error, a refusal after masking', async () => {
    const { secret } = await customer(true);
    const cases: Array<[ClientFormat, string]> = [
      ['chat', 'openai/gpt-4o-mini'],
      ['messages', 'anthropic/claude-sonnet-4-5'],
      ['responses', 'openai/gpt-4o-mini'],
    ];
    for (const [format, model] of cases) {
      const fake = model.startsWith('anthropic/') ? harness().anthropic : harness().openai;
      const ok = await postText(harness().gateway.url, format, secret, body(format, model));
      const stream = await postText(harness().gateway.url, format, secret, { ...body(format, model), stream: true });
      fake.enqueue({ error: { status: 429, retryAfter: 3 } });
      const providerError = await postText(harness().gateway.url, format, secret, body(format, model));
      const unknownModel = await postText(harness().gateway.url, format, secret, body(format, 'openai/nothing'));
      expect([ok.status, stream.status, providerError.status, unknownModel.status], format).to.deep.equal([200, 200, 429, 404]);
      expect(stream.headers.get('content-type')).to.match(/^text\/event-stream/);
      for (const answer of [ok, stream, providerError, unknownModel]) expect(answer.headers.get('x-pii-masking'), `${format} ${answer.status}`).to.equal('applied');
    }
  });

  it('on with an image model on chat completions is 400 pii_masking_unsupported_endpoint; the setting alone leaves it unmasked, saying off', async () => {
    const { secret } = await customer(true);
    const image = { model: 'openai/gpt-image-1', modalities: ['image'], messages: [{ role: 'user', content: `a portrait of ${EMAIL}` }] };
    const refused = await postText(harness().gateway.url, 'chat', secret, image, { 'X-PII-Masking': 'on' });
    expect([refused.status, refused.body.error.code]).to.deep.equal([400, 'pii_masking_unsupported_endpoint']);
    expect(refused.headers.get('x-pii-masking')).to.equal('off');
    const unmasked = await postText(harness().gateway.url, 'chat', secret, image);
    expect([unmasked.status, unmasked.headers.get('x-pii-masking')]).to.deep.equal([200, 'off']);
    expect(sentOriginal()).to.equal(true);
  });

  it("on with embeddings or images is 400 pii_masking_unsupported_endpoint; the organization's setting alone does not refuse them", async () => {
    const { secret } = await customer(true);
    const post = (path: string, payload: unknown, headers: Record<string, string>) =>
      fetch(`${harness().gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(payload) });
    const embeddings = { model: 'openai/text-embedding-3-small', input: EMAIL };
    const images = { model: 'openai/gpt-image-1', prompt: 'a lighthouse', response_format: 'b64_json' };
    for (const [path, payload] of [['/v1/embeddings', embeddings], ['/v1/images/generations', images]] as const) {
      const refused = await post(path, payload, { 'X-PII-Masking': 'on' });
      expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code], path).to.deep.equal([400, 'pii_masking_unsupported_endpoint']);
      expect((await post(path, payload, {})).status, path).to.equal(200);
    }
  });
});
