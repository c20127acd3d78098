import { expect } from 'chai';
import { startFakeOpenAi, type FakeOpenAi } from '../../ops/fake-providers/fake-openai-provider.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { FAKE_OPENAI_KEY } from '../support/test-gateway.js';
import { testDatabaseUrl } from '../support/databases.js';
import { parseUsd } from '../../src/billing/money.js';

/**
 * A very long answer must not make the gateway's memory grow: a stream is translated and counted as it
 * passes, never kept. The gateway runs as a child process (the fake provider's own buffers stay in this
 * one) and reports its heap after a full collection when asked.
 */
const CHUNKS = 100_000;
const MiB = 1024 * 1024;

describe('a 100,000-chunk stream through a format translation', function () {
  this.timeout(120_000);
  let openai: FakeOpenAi;
  let gateway: GatewayProcess;
  before(async () => {
    openai = await startFakeOpenAi({ apiKey: FAKE_OPENAI_KEY });
    gateway = await startGatewayProcess({ DATABASE_URL: testDatabaseUrl() }, { openai: openai.url }, { probeEventLoop: true });
  });
  after(async () => {
    await Promise.allSettled([gateway?.stop(), openai?.close()]);
  });

  it('keeps the heap flat while the answer streams, and charges it in full', async () => {
    const { secret, orgId } = await gateway.admin.organizationWithKey({ credits: '5' });
    // The provider reports no usage: the gateway has to count all 100,000 chunks itself.
    openai.enqueue({ text: 'token '.repeat(CHUNKS), deltas: CHUNKS, usage: null });
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': secret },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', max_tokens: 16_000, stream: true, messages: [{ role: 'user', content: 'talk' }] }),
    });
    expect(response.status).to.equal(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let deltas = 0;
    let early: number | undefined;
    let late: number | undefined;
    let tail = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = tail + decoder.decode(value, { stream: true });
      const cut = text.lastIndexOf('\n');
      deltas += text.slice(0, cut + 1).split('"text_delta"').length - 1;
      tail = text.slice(cut + 1);
      // pausing the reader here also lets the gateway's buffers fill, as a slow client would
      if (early === undefined && deltas >= CHUNKS * 0.2) early = await gateway.heapUsedAfterGc();
      if (late === undefined && deltas >= CHUNKS * 0.9) late = await gateway.heapUsedAfterGc();
    }
    expect(deltas).to.equal(CHUNKS);
    const growth = late! - early!;
    expect(growth, `heap grew by ${(growth / MiB).toFixed(1)} MiB between 20 % and 90 % of the stream`).to.be.lessThan(4 * MiB);
    // Counted, not reported. Input: the reserve's bound, 11 tokens ("user" and "talk" are 1 token each,
    // raised by a quarter to 3, plus 4 for each of the 2 objects) at $0.15/M = 1,650 nanodollars. Output:
    // "token " 100,000 times tokenizes to 100,000 tokens plus at most one per piece the meter counts
    // separately (a trailing space; well under 100 pieces), raised by a quarter: from 125,000 to 125,125
    // tokens at $0.60/M = 75,000,000 to 75,075,000 nanodollars.
    let organization: { balance_usd: string; reserved_usd: string } | undefined;
    for (let attempt = 0; attempt < 100; attempt++) {
      organization = await gateway.admin.ok('GET', `/organizations/${orgId}`);
      if (organization!.reserved_usd === '0.00') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const charged = parseUsd('5') - parseUsd(organization!.balance_usd);
    expect(Number(charged), `charged ${charged} nanodollars`).to.be.within(75_001_650, 75_076_650);
  });
});
