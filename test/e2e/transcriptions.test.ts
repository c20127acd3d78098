import { createHash } from 'node:crypto';
import { expect } from 'chai';
import OpenAI, { toFile } from 'openai';
import { useGatewayHarness } from '../support/gateway-harness.js';
import { postMultipart, speechWav } from '../support/multipart-requests.js';

/**
 * Speech recognition through the official `openai` package: a multipart declaration on the one pipeline.
 * Prices of the test catalog: whisper-1 $0.006 an audio minute; gpt-4o-transcribe $6.00 per million input
 * and $10.00 per million output tokens; local/whisper-large (an OpenAI-compatible server) $0.003 a minute.
 * The fake provider answers "Hello from the fake provider." and, for whisper models, a duration of 3.2 s unless told otherwise.
 */
const WHISPER = 'openai/whisper-1';
const USD = 1_000_000_000n;
const PATH = '/v1/audio/transcriptions';

describe('POST /v1/audio/transcriptions', () => {
  const current = useGatewayHarness();
  const client = (secret: string) => new OpenAI({ apiKey: secret, baseURL: `${current().gateway.url}/v1`, maxRetries: 0 });
  // 2 s of 16 kHz mono 16-bit PCM: 44 + 64,000 = 64,044 bytes
  const wav = speechWav(2);
  const upload = () => toFile(wav, 'speech.wav', { type: 'audio/wav' });

  it('transcribes a WAV file (json, the default), streams it on unchanged, and charges the reported duration', async () => {
    const { orgId, secret } = await current().customer('1');
    current().openai.enqueue({ path: PATH, audioSeconds: 90 });
    const result = await client(secret).audio.transcriptions.create({ model: WHISPER, file: await upload(), language: 'en', temperature: 0.2 });
    expect(result.text).to.equal('Hello from the fake provider.');
    const forwarded = current().openai.lastRequest!.body as Record<string, unknown>;
    expect(forwarded).to.include({ model: 'whisper-1', response_format: 'json', language: 'en', temperature: '0.2' });
    expect(forwarded.file).to.deep.equal({ filename: 'speech.wav', type: 'audio/wav', size: 64_044, sha256: createHash('sha256').update(wav).digest('hex') });
    // 90 s at $0.006 a minute = $0.009
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: USD - 9_000_000n, reserved: 0n });
  });

  const TEXT_FORMATS = [
    ['text', 'json', 'text/plain; charset=utf-8', 'Hello from the fake provider.\n'],
    ['srt', 'verbose_json', 'application/x-subrip; charset=utf-8', '1\n00:00:00,000 --> 00:00:03,200\nHello from the fake provider.\n\n'],
    ['vtt', 'verbose_json', 'text/vtt; charset=utf-8', 'WEBVTT\n\n00:00:00.000 --> 00:00:03.200\nHello from the fake provider.\n\n'],
  ] as const;
  for (const [format, asked, contentType, expected] of TEXT_FORMATS) {
    it(`answers response_format ${format} as ${contentType.split(';')[0]}, asking the provider for ${asked} to bill its duration`, async () => {
      const { orgId, secret } = await current().customer('1');
      const text = await client(secret).audio.transcriptions.create({ model: WHISPER, file: await upload(), response_format: format });
      expect(text).to.equal(expected);
      expect(current().openai.lastRequest!.body).to.include({ response_format: asked });
      if (asked === 'verbose_json') expect(current().openai.lastRequest!.body).to.include({ 'timestamp_granularities[]': 'segment' });
      const raw = await postMultipart(current().gateway.url, PATH, secret, { model: WHISPER, response_format: format }, wav);
      expect(raw.status).to.equal(200);
      expect(raw.headers['content-type']).to.equal(contentType);
      expect(raw.text).to.equal(expected);
      // twice 3.2 s at $0.006 a minute: 2 × $0.00032 = $0.00064
      expect(await current().settledMoney(orgId)).to.deep.equal({ balance: USD - 640_000n, reserved: 0n });
    });
  }

  it('renders SRT cues from the provider segments', async () => {
    const { secret } = await current().customer('1');
    current().openai.enqueue({ path: PATH, transcriptSegments: [{ start: 0, end: 1.5, text: ' Hello there.' }, { start: 1.5, end: 3725.25, text: ' General Kenobi.' }] });
    const srt = await client(secret).audio.transcriptions.create({ model: WHISPER, file: await upload(), response_format: 'srt' });
    expect(srt).to.equal('1\n00:00:00,000 --> 00:00:01,500\nHello there.\n\n2\n00:00:01,500 --> 01:02:05,250\nGeneral Kenobi.\n\n');
  });

  it('passes verbose_json through with its duration and segments', async () => {
    const { orgId, secret } = await current().customer('1');
    current().openai.enqueue({ path: PATH, audioSeconds: 30 });
    const verbose = await client(secret).audio.transcriptions.create({ model: WHISPER, file: await upload(), response_format: 'verbose_json', timestamp_granularities: ['word'] });
    expect(verbose).to.include({ duration: 30, text: 'Hello from the fake provider.' });
    expect(current().openai.lastRequest!.body).to.include({ response_format: 'verbose_json', 'timestamp_granularities[]': 'word' });
    // 30 s at $0.006 a minute = $0.003
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: USD - 3_000_000n, reserved: 0n });
  });

  it('charges a model priced per token for the tokens it reports', async () => {
    const { orgId, secret } = await current().customer('1');
    current().openai.enqueue({ path: PATH, usage: { inputTokens: 14, outputTokens: 45 } });
    const result = await client(secret).audio.transcriptions.create({ model: 'openai/gpt-4o-transcribe', file: await upload() });
    expect(result.usage).to.deep.include({ type: 'tokens', input_tokens: 14, output_tokens: 45 });
    // 14 × $6.00/M = $0.000084, 45 × $10.00/M = $0.00045: $0.000534
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: USD - 534_000n, reserved: 0n });
  });

  it('serves an OpenAI-compatible server under its own model name', async () => {
    const { orgId, secret } = await current().customer('1');
    current().openai.enqueue({ path: PATH, audioSeconds: 120 });
    await client(secret).audio.transcriptions.create({ model: 'local/whisper-large', file: await upload() });
    expect(current().openai.lastRequest!.body).to.include({ model: 'whisper-large-v3' });
    // 120 s at $0.003 a minute = $0.006
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: USD - 6_000_000n, reserved: 0n });
  });

  it('charges the reserved duration when the provider reports neither usage nor duration', async () => {
    const { orgId, secret } = await current().customer('1');
    current().openai.enqueue({ path: PATH, usage: null });
    await client(secret).audio.transcriptions.create({ model: WHISPER, file: await upload() });
    // 64,044 bytes at 2,000 bytes a second (16 kbit/s) = 33 s reserved; at $0.006 a minute = $0.0033
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: USD - 3_300_000n, reserved: 0n });
  });

  it('reserves from the file size: 1 MiB reserves 525 s, more than a $0.05 balance covers (402, nothing charged)', async () => {
    const { orgId, secret } = await current().customer('0.05');
    const calls = current().openai.requests.length;
    // 1,048,576 bytes / 2,000 = 524.3 → 525 s; at $0.006 a minute = $0.0525 > $0.05
    const answer = await postMultipart(current().gateway.url, PATH, secret, { model: WHISPER }, Buffer.alloc(1024 * 1024, 7));
    expect(answer.status, answer.text).to.equal(402);
    expect(answer.json.error.code).to.equal('insufficient_funds');
    expect(current().openai.requests.length).to.equal(calls);
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 50_000_000n, reserved: 0n });
  });
});
