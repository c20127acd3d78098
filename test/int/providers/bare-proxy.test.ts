import { expect } from 'chai';
import { startBareProxy, type BareProxy } from '../../../ops/bench/lib/bare-proxy.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../../ops/fake-providers/fake-openai-provider.js';

describe('bare pass-through proxy (benchmark floor)', () => {
  let openai: FakeOpenAi;
  let proxy: BareProxy;
  before(async () => {
    openai = await startFakeOpenAi();
    proxy = await startBareProxy(openai.origin);
  });
  after(async () => {
    await proxy.close();
    await openai.close();
  });

  it('forwards request bytes and headers, and returns status, headers and body as they are', async () => {
    const body = '{"model":"m",  "messages":[]}';
    const response = await fetch(`${proxy.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body });
    expect(response.status).to.equal(200);
    expect(response.headers.get('x-request-id')).to.match(/^req_fake/);
    expect(((await response.json()) as { object: string }).object).to.equal('chat.completion');
    expect(openai.lastRequest!.rawBody.toString()).to.equal(body);
    expect(openai.lastRequest!.headers.authorization).to.equal('Bearer k');
  });

  it('streams event streams and passes errors through', async () => {
    openai.enqueue({ text: 'a b c' });
    const streamed = await fetch(`${proxy.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"m","messages":[],"stream":true}' });
    expect(streamed.headers.get('content-type')).to.match(/^text\/event-stream/);
    expect(await streamed.text()).to.match(/data: \[DONE\]\n\n$/);
    openai.enqueue({ error: { status: 429, retryAfter: 4 } });
    const limited = await fetch(`${proxy.url}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(limited.status).to.equal(429);
    expect(limited.headers.get('retry-after')).to.equal('4');
  });
});
