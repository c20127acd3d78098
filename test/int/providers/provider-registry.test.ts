import { expect } from 'chai';
import { PROVIDER_KINDS } from '../../../src/catalog/catalog-schema.js';
import { PROVIDER_APIS } from '../../../src/providers/provider-api.js';
import { providerAdapter, providerRegistry } from '../../../src/providers/provider-registry.js';

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

describe('provider registry', () => {
  it('has one adapter per catalog kind, each naming its own kind', () => {
    for (const kind of PROVIDER_KINDS) expect(providerAdapter(kind).kind).to.equal(kind);
  });

  it('maps every API to the kind’s path, relative to its base URL', () => {
    const paths = Object.fromEntries(PROVIDER_KINDS.map((kind) => [kind, Object.fromEntries(PROVIDER_APIS.map((api) => [api, providerRegistry[kind].path(api)]))]));
    expect(paths).to.deep.equal({
      openai: {
        chat: '/chat/completions',
        messages: undefined,
        responses: '/responses',
        embeddings: '/embeddings',
        images: '/images/generations',
        transcriptions: '/audio/transcriptions',
        videos: '/videos',
      },
      anthropic: {
        chat: undefined,
        messages: '/v1/messages',
        responses: undefined,
        embeddings: undefined,
        images: undefined,
        transcriptions: undefined,
        videos: undefined,
      },
      'openai-compatible': {
        chat: '/chat/completions',
        messages: '/messages',
        responses: '/responses',
        embeddings: '/embeddings',
        images: '/images/generations',
        transcriptions: '/audio/transcriptions',
        videos: '/videos',
      },
    });
    expect(providerRegistry.openai.videoPath('video_a/b', 'job')).to.equal('/videos/video_a%2Fb');
    expect(providerRegistry.openai.videoPath('video_1', 'content')).to.equal('/videos/video_1/content');
    expect(providerRegistry.anthropic.videoPath('video_1', 'job')).to.equal(undefined);
  });

  it('authenticates per kind', () => {
    expect(providerRegistry.openai.headers('sk')).to.deep.equal({ credentials: { authorization: 'Bearer sk' }, defaults: {} });
    expect(providerRegistry['openai-compatible'].headers(undefined)).to.deep.equal({ credentials: {}, defaults: {} });
    expect(providerRegistry.anthropic.headers('ak')).to.deep.equal({ credentials: { 'x-api-key': 'ak' }, defaults: { 'anthropic-version': '2023-06-01' } });
  });

  describe('error descriptions (log lines; the body itself goes back unchanged)', () => {
    it('describes OpenAI errors', () => {
      const body = json({ error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } });
      expect(providerRegistry.openai.describeError(429, body)).to.equal('429 requests/rate_limit_exceeded: Rate limit reached');
      expect(providerRegistry.openai.describeError(502, Buffer.from('<html>\n  Bad gateway\n</html>'))).to.equal('502: <html> Bad gateway </html>');
    });

    it('describes Anthropic errors', () => {
      const body = json({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_1' });
      expect(providerRegistry.anthropic.describeError(529, body)).to.equal('529 overloaded_error: Overloaded');
      expect(providerRegistry.anthropic.describeError(413, Buffer.from('request too large'))).to.equal('413: request too large');
    });

    it('describes the looser shapes of compatible servers', () => {
      const describe = providerRegistry['openai-compatible'].describeError;
      expect(describe(402, json({ error: { code: 402, message: 'Insufficient credits', metadata: {} } }))).to.equal('402: Insufficient credits');
      expect(describe(404, json({ error: 'model "llama" not found' }))).to.equal('404: model "llama" not found');
      expect(describe(404, json({ detail: 'Not Found' }))).to.equal('404: Not Found');
      expect(describe(500, Buffer.from('x'.repeat(500)))).to.have.length.below(210);
    });
  });

  describe('side-API usage extractors', () => {
    const usage = providerRegistry.openai.sideUsage;

    it('reads embeddings prompt tokens', () => {
      expect(usage.embeddings({ object: 'list', data: [], usage: { prompt_tokens: 8, total_tokens: 8 } })).to.deep.equal({ version: 2, inputTokens: 8 });
      expect(usage.embeddings({ usage: { total_tokens: 5 } })).to.deep.equal({ version: 2, inputTokens: 5 });
      expect(usage.embeddings({ data: [] })).to.equal(undefined);
    });

    it('counts images, with token usage when reported', () => {
      expect(usage.images({ data: [{ b64_json: 'a' }, { b64_json: 'b' }], usage: { input_tokens: 10, output_tokens: 500, total_tokens: 510 } })).to.deep.equal({
        version: 2,
        images: 2,
        inputTokens: 10,
        outputTokens: 500,
      });
      expect(usage.images({ created: 1, data: [{ b64_json: 'a' }] })).to.deep.equal({ version: 2, images: 1 });
      expect(usage.images('not json')).to.equal(undefined);
    });

    it('reads transcription tokens or seconds', () => {
      expect(usage.transcription({ text: 'x', usage: { type: 'tokens', input_tokens: 14, input_token_details: { text_tokens: 0, audio_tokens: 14 }, output_tokens: 45, total_tokens: 59 } })).to.deep.equal({
        version: 2,
        inputTokens: 14,
        outputTokens: 45,
        audioInputTokens: 14,
      });
      expect(usage.transcription({ text: 'x', usage: { type: 'duration', seconds: 3.2 } })).to.deep.equal({ version: 2, audioSeconds: 3.2 });
      expect(usage.transcription({ task: 'transcribe', duration: 8.5, text: 'x' })).to.deep.equal({ version: 2, audioSeconds: 8.5 });
      expect(usage.transcription({ text: 'x' })).to.equal(undefined);
    });

    it('reports nothing for Anthropic, which has no side APIs', () => {
      expect(providerRegistry.anthropic.sideUsage.embeddings({ usage: { prompt_tokens: 1 } })).to.equal(undefined);
    });
  });
});
