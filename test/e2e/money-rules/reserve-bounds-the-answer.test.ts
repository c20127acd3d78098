import { expect } from 'chai';
import { useGatewayHarness, type GatewayHarness } from '../../support/gateway-harness.js';
import { postMultipart } from '../../support/multipart-requests.js';
import { postText, type ClientFormat } from '../../support/text-format-client.js';
import { chat, gate, MODEL, postChat, reservedOf } from './money-rules-kit.js';

/**
 * The reserve bounds the charge of the largest answer a request allows, on every endpoint and for every
 * multiplier it accepts (chat's `n`, images' `n`, several embeddings inputs, the audio's duration): the
 * provider is scripted to answer that largest answer, and the charge comes out equal to the reserve, with
 * no overrun in the settle event. Amounts in n$ (1 USD = 10^9 n$), from the test catalog:
 *
 * - openai/gpt-4o-mini: 150 n$ an input token, 600 n$ an output token (money-rules-kit.ts);
 * - anthropic/claude-sonnet-4-5: $3.00 / $15.00 per M = 3,000 / 15,000 n$ a token;
 * - openai/gpt-image-1: $0.04 an image = 40,000,000 n$;
 * - openai/text-embedding-3-small: $0.02 per M = 20 n$ a token;
 * - openai/whisper-1: $0.006 a minute = 100,000 n$ a second;
 * - openai/gpt-4o-transcribe: $6.00 / $10.00 per M = 6,000 / 10,000 n$ a token.
 *
 * `chat(cap)` (and the same body on /v1/messages) is estimated at 11 input tokens (money-rules-kit.ts);
 * `n` is a number, which the input estimate does not count.
 */
describe('money rules: the reserve bounds the largest answer on every endpoint and multiplier', function () {
  this.timeout(60_000);
  const current = useGatewayHarness();

  /** The settle events of an organization's account, once nothing is reserved: what each request was charged, and its overrun. */
  async function settlements(orgId: string): Promise<Array<{ cost: string; overrun: string }>> {
    await current().settledMoney(orgId);
    const events = await current().gateway.store.readStream(`account-${orgId}`);
    return events
      .filter((event) => event.type === 'ReservationSettled')
      .map((event) => {
        const { cost, overrun } = event.data as { cost: string; overrun: string };
        return { cost, overrun };
      });
  }

  /** Sends `send()` with the provider held, reads the reserve while the request is open, then lets it answer. */
  async function reserveThenAnswer(harness: GatewayHarness, orgId: string, provider: 'openai' | 'anthropic', send: (held: Promise<void>) => Promise<{ status: number }>) {
    const held = gate();
    const before = harness[provider].requests.length;
    const pending = send(held.promise);
    const giveUp = Date.now() + 10_000;
    let early: unknown;
    void pending.then((answer) => (early = answer));
    while (harness[provider].requests.length === before) {
      if (Date.now() > giveUp || early) {
        held.open();
        throw new Error(`the provider was never called: ${JSON.stringify(early)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const reserved = await reservedOf(harness, orgId);
    held.open();
    const answer = await pending;
    return { reserved, status: answer.status, providerBody: harness[provider].requests.at(-1)!.body as Record<string, unknown> };
  }

  it("chat completions with n: 10 reserves ten answers of the cap, sends n on, and the largest answer's charge equals the reserve", async () => {
    const { orgId, secret } = await current().customer('1');
    // ten answers of 100 tokens each: 11 × 150 + 10 × 100 × 600 = 1,650 + 600,000 = 601,650 n$
    const { reserved, status, providerBody } = await reserveThenAnswer(current(), orgId, 'openai', (held) => {
      current().openai.enqueue({ holdUntil: held, usage: { inputTokens: 11, outputTokens: 1_000 } });
      return postChat(current(), secret, chat(100, { n: 10 }));
    });
    expect(status).to.equal(200);
    expect(providerBody.n).to.equal(10);
    expect(reserved).to.equal(601_650n);
    expect(await settlements(orgId)).to.deep.equal([{ cost: '601650', overrun: '0' }]);
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 1_000_000_000n - 601_650n, reserved: 0n });
  });

  it('chat completions answers n choices, and refuses n: 10 with a 402 on a balance that covers one choice', async () => {
    // 70,000 n$ covers one answer of 100 tokens (1,650 + 60,000 = 61,650 n$), not ten (601,650 n$)
    const { orgId, secret } = await current().customer('0.00007');
    const before = current().openai.requests.length;
    const refused = await postChat(current(), secret, chat(100, { n: 10 }));
    expect(refused.status).to.equal(402);
    expect(refused.body.error.code).to.equal('insufficient_funds');
    expect(refused.body.error.message).to.contain('this request reserves 0.00060165 USD');
    expect(current().openai.requests.length, 'the provider was not called').to.equal(before);

    const one = await postChat(current(), secret, chat(100, { n: 1 }));
    expect(one.status).to.equal(200);
    // the default usage, 12 × 150 + 7 × 600 = 6,000 n$
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 70_000n - 6_000n, reserved: 0n });
  });

  it('refuses an n outside 1–128 as a bad request, before anything is reserved', async () => {
    const { orgId, secret } = await current().customer('1');
    for (const n of [0, 129, 2.5, '3']) {
      const answer = await postChat(current(), secret, chat(100, { n }));
      expect(answer.status, `n: ${JSON.stringify(n)}`).to.equal(400);
      expect(answer.body.error.type).to.equal('invalid_request_error');
      expect(answer.body.error.param).to.equal('n');
    }
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 1_000_000_000n, reserved: 0n });
  });

  it('a chat stream with n: 3 and no provider usage is charged for the output of every answer', async () => {
    const { orgId, secret } = await current().customer('1');
    // Each of the three answers streams " yes" (one o200k token); counted together " yes yes yes" is 3
    // tokens, × 5/4 = 3.75, rounded up 4. 11 × 150 + 4 × 600 = 1,650 + 2,400 = 4,050 n$ (counting only
    // the first answer would charge 11 × 150 + 2 × 600 = 2,850 n$).
    current().openai.enqueue({ text: ' yes', usage: null });
    const answer = await postChat(current(), secret, chat(50, { n: 3, stream: true }));
    expect(answer.status).to.equal(200);
    const indices = new Set(answer.events!.filter((event) => event.data !== '[DONE]').flatMap((event) => (JSON.parse(event.data).choices as Array<{ index: number }>).map((choice) => choice.index)));
    expect([...indices].sort()).to.deep.equal([0, 1, 2]);
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 1_000_000_000n - 4_050n, reserved: 0n });
  });

  it('a chat request translated for a provider of another format reserves one answer: n does not reach it', async () => {
    const { orgId, secret } = await current().customer('1');
    // one answer of 100 tokens on claude-sonnet-4-5, its input at the cache-write rate (the dearest way it can
    // be reported): 11 × 3,750 + 100 × 15,000 = 41,250 + 1,500,000 = 1,541,250 n$; the largest answer, its
    // whole input written to the cache (Anthropic's input_tokens excludes it), is charged exactly that
    const { reserved, status, providerBody } = await reserveThenAnswer(current(), orgId, 'anthropic', (held) => {
      current().anthropic.enqueue({ holdUntil: held, usage: { inputTokens: 0, cacheWriteInputTokens: 11, outputTokens: 100 } });
      return postChat(current(), secret, { ...chat(100, { n: 10 }), model: 'anthropic/claude-sonnet-4-5' });
    });
    expect(status).to.equal(200);
    expect(providerBody).to.not.have.property('n');
    expect(reserved).to.equal(1_541_250n);
    expect(await settlements(orgId)).to.deep.equal([{ cost: '1541250', overrun: '0' }]);
  });

  it('an image model on chat completions reserves one image an answer: n: 3 reserves three', async () => {
    const { orgId, secret } = await current().customer('1');
    // 3 × 40,000,000 = 120,000,000 n$ (the model has no token prices; max_tokens keeps three answers of its
    // 128,000-token default ceiling, 384,000 tokens, within the key's 200,000 tokens a minute)
    const { reserved, status } = await reserveThenAnswer(current(), orgId, 'openai', (held) => {
      current().openai.enqueue({ holdUntil: held });
      return postChat(current(), secret, { model: 'openai/gpt-image-1', n: 3, max_tokens: 100, modalities: ['image'], messages: [{ role: 'user', content: 'hello' }] });
    });
    expect(status).to.equal(200);
    expect(reserved).to.equal(120_000_000n);
    expect(await settlements(orgId)).to.deep.equal([{ cost: '120000000', overrun: '0' }]);
  });

  const capped: Array<[ClientFormat, string, 'openai' | 'anthropic', Record<string, unknown>, bigint]> = [
    // the input at the cache-write rate, the dearest it can be reported at: 11 × 3,750 + 100 × 15,000 = 41,250 +
    // 1,500,000 = 1,541,250 n$ (the largest answer writes all 11 to the cache)
    ['messages', 'anthropic/claude-sonnet-4-5', 'anthropic', { max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] }, 1_541_250n],
    // "hello" 1 token × 5/4 = 2 (rounded up) + one object × 4 = 6 input tokens: 6 × 150 + 100 × 600 = 900 + 60,000 = 60,900 n$
    ['responses', MODEL, 'openai', { input: 'hello', max_output_tokens: 100 }, 60_900n],
  ];
  for (const [format, model, provider, body, reserve] of capped) {
    it(`${format}: the output cap bounds the answer, and the largest answer's charge equals the reserve`, async () => {
      const { orgId, secret } = await current().customer('1');
      const usage = format === 'messages' ? { inputTokens: 0, cacheWriteInputTokens: 11, outputTokens: 100 } : { inputTokens: 6, outputTokens: 100 };
      const { reserved, status } = await reserveThenAnswer(current(), orgId, provider, (held) => {
        current()[provider].enqueue({ holdUntil: held, usage });
        return postText(current().gateway.url, format, secret, { model, ...body });
      });
      expect(status).to.equal(200);
      expect(reserved).to.equal(reserve);
      expect(await settlements(orgId)).to.deep.equal([{ cost: String(reserve), overrun: '0' }]);
    });
  }

  it('embeddings reserves every input: two inputs, and the largest usage they allow is charged at the reserve', async () => {
    const { orgId, secret } = await current().customer('1');
    // "first text" and "second text" are 2 o200k tokens each: 4 × 5/4 = 5 tokens × 20 n$ = 100 n$
    const { reserved, status } = await reserveThenAnswer(current(), orgId, 'openai', (held) => {
      current().openai.enqueue({ path: '/v1/embeddings', holdUntil: held, usage: { inputTokens: 5, outputTokens: 0 } });
      return postJson(current(), '/v1/embeddings', secret, { model: 'openai/text-embedding-3-small', input: ['first text', 'second text'] });
    });
    expect(status).to.equal(200);
    expect(reserved).to.equal(100n);
    expect(await settlements(orgId)).to.deep.equal([{ cost: '100', overrun: '0' }]);
  });

  it('images reserves all n images, and refuses n: 10 with a 402 on a balance for one', async () => {
    const { orgId, secret } = await current().customer('1');
    // 10 × 40,000,000 = 400,000,000 n$; the provider makes all ten
    const tenImages = Array.from({ length: 10 }, () => 'iVBORw0KGgo=');
    const { reserved, status } = await reserveThenAnswer(current(), orgId, 'openai', (held) => {
      current().openai.enqueue({ path: '/v1/images/generations', holdUntil: held, images: tenImages });
      return postJson(current(), '/v1/images/generations', secret, { model: 'openai/gpt-image-1', prompt: 'a lighthouse at dawn', n: 10 });
    });
    expect(status).to.equal(200);
    expect(reserved).to.equal(400_000_000n);
    expect(await settlements(orgId)).to.deep.equal([{ cost: '400000000', overrun: '0' }]);

    // $0.05 covers one image (40,000,000 n$), not ten
    const poor = await current().customer('0.05');
    const refused = await postJson(current(), '/v1/images/generations', poor.secret, { model: 'openai/gpt-image-1', prompt: 'a lighthouse at dawn', n: 10 });
    expect(refused.status).to.equal(402);
    expect(await current().settledMoney(poor.orgId)).to.deep.equal({ balance: 50_000_000n, reserved: 0n });
  });

  describe('transcriptions: the duration a WAV header declares raises the size bound', () => {
    // 8-bit mono PCM at 1,000 samples a second (8 kbit/s, below the 16 kbit/s of the size bound): 100 s
    // of audio are 100,044 bytes. The size bound is ceil(100,044 / 2,000) = 51 s; the header's 100 s is
    // within the 6 kbit/s ceiling, ceil(100,044 / 750) = 134 s: the reserve counts 100 s.
    const slowWav = eightBitWav(1_000);

    it('whisper-1 reserves the declared 100 s, and a provider reporting 100 s is charged that, no overrun', async () => {
      const { orgId, secret } = await current().customer('1');
      // 100 s × 100,000 n$ = 10,000,000 n$ (the size bound alone, 51 s, would have reserved 5,100,000)
      const { reserved, status } = await reserveThenAnswer(current(), orgId, 'openai', (held) => {
        current().openai.enqueue({ path: '/v1/audio/transcriptions', holdUntil: held, audioSeconds: 100 });
        return postMultipart(current().gateway.url, '/v1/audio/transcriptions', secret, { model: 'openai/whisper-1' }, slowWav);
      });
      expect(status).to.equal(200);
      expect(reserved).to.equal(10_000_000n);
      expect(await settlements(orgId)).to.deep.equal([{ cost: '10000000', overrun: '0' }]);
    });

    it('a model priced per token reserves the audio and transcript tokens of the duration, and the prompt with the tokenizer margin', async () => {
      const { orgId, secret } = await current().customer('1');
      // 100 s: 2,500 audio tokens + the prompt "Names: Ada, Grace." (6 o200k tokens × 5/4 = 7.5, rounded up 8)
      // = 2,508 input tokens; 1,000 transcript tokens. 2,508 × 6,000 + 1,000 × 10,000 = 15,048,000 + 10,000,000 = 25,048,000 n$
      const { reserved, status } = await reserveThenAnswer(current(), orgId, 'openai', (held) => {
        current().openai.enqueue({ path: '/v1/audio/transcriptions', holdUntil: held, usage: { inputTokens: 2_508, outputTokens: 1_000 } });
        return postMultipart(current().gateway.url, '/v1/audio/transcriptions', secret, { model: 'openai/gpt-4o-transcribe', prompt: 'Names: Ada, Grace.' }, slowWav);
      });
      expect(status).to.equal(200);
      expect(reserved).to.equal(25_048_000n);
      expect(await settlements(orgId)).to.deep.equal([{ cost: '25048000', overrun: '0' }]);
    });

    it('a header that declares less than the size bound does not lower it, and one that declares too much counts at most the 6 kbit/s ceiling', async () => {
      const { orgId, secret } = await current().customer('1');
      // 100,000 samples at a declared 100,000 a second, 1 s: the size bound, 51 s × 100,000 = 5,100,000 n$
      const short = await reserveThenAnswer(current(), orgId, 'openai', (held) => {
        current().openai.enqueue({ path: '/v1/audio/transcriptions', holdUntil: held, audioSeconds: 1 });
        return postMultipart(current().gateway.url, '/v1/audio/transcriptions', secret, { model: 'openai/whisper-1' }, eightBitWav(100_000));
      });
      expect(short.reserved).to.equal(5_100_000n);
      // 100,000 samples at a declared 10 a second, 10,000 s: the ceiling, 134 s × 100,000 = 13,400,000 n$
      const long = await reserveThenAnswer(current(), orgId, 'openai', (held) => {
        current().openai.enqueue({ path: '/v1/audio/transcriptions', holdUntil: held, audioSeconds: 1 });
        return postMultipart(current().gateway.url, '/v1/audio/transcriptions', secret, { model: 'openai/whisper-1' }, eightBitWav(10));
      });
      expect(long.reserved).to.equal(13_400_000n);
    });
  });

  it('concurrent chat requests with n: 4 never take the balance below zero: exactly those it covers are served', async () => {
    // each reserves 11 × 150 + 4 × 100 × 600 = 1,650 + 240,000 = 241,650 n$; the balance covers three:
    // 3 × 241,650 = 724,950 n$. Each answers its largest usage, 11 input and 400 output tokens = 241,650 n$.
    const { orgId, secret } = await current().customer('0.00072495');
    const held = gate();
    current().openai.reset();
    for (let i = 0; i < 10; i++) current().openai.enqueue({ holdUntil: held.promise, usage: { inputTokens: 11, outputTokens: 400 } });
    const pending = Array.from({ length: 10 }, () => postChat(current(), secret, chat(100, { n: 4 })));
    // the refused ones answer at once; the three served wait at the provider
    const giveUp = Date.now() + 10_000;
    while (current().openai.requests.length < 3 && Date.now() < giveUp) await new Promise((resolve) => setTimeout(resolve, 10));
    held.open();
    const statuses = (await Promise.all(pending)).map((answer) => answer.status).sort();
    expect(statuses).to.deep.equal([200, 200, 200, 402, 402, 402, 402, 402, 402, 402]);
    expect(await current().settledMoney(orgId)).to.deep.equal({ balance: 0n, reserved: 0n });
    current().openai.reset(); // the seven answers nobody took
  });
});

/**
 * A WAV file of 100,000 samples of 8-bit mono PCM (100,044 bytes) whose header declares `samplesPerSecond`:
 * at 1,000 it holds 100 s, the truth for audio recorded at that rate; other rates make its declared duration
 * shorter or longer.
 */
function eightBitWav(samplesPerSecond: number): Buffer {
  const samples = 100_000;
  const wav = Buffer.alloc(44 + samples, 0x80);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + samples, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(samplesPerSecond, 24);
  wav.writeUInt32LE(samplesPerSecond, 28); // bytes a second
  wav.writeUInt16LE(1, 32); // block align
  wav.writeUInt16LE(8, 34); // bits a sample
  wav.write('data', 36);
  wav.writeUInt32LE(samples, 40);
  return wav;
}

async function postJson(harness: GatewayHarness, path: string, secret: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${harness.gateway.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}
