import { expect } from 'chai';
import { chatEndpoint } from '../../../src/endpoints/text/text-endpoints.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { runEndpoint } from '../../../src/pipeline/run-endpoint.js';
import type { ProviderCall, ProviderResponse } from '../../../src/providers/provider-client.js';
import { MemoryConnection } from '../../support/memory-connection.js';
import { openPipelineCore, type PipelineCore } from '../../support/pipeline-core.js';
import { ScriptedProvider } from '../../support/scripted-provider.js';

const completion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
};
const headers = { contentType: 'application/json', retryAfter: undefined, requestId: undefined };
const CHAT = { model: 'openai/gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] };

/**
 * The runner (src/pipeline/run-endpoint.ts) on a real core and an in-memory client connection: the steps in
 * their order, what a refusal at each point leaves behind, and the record the log and the metrics get.
 */
describe('the request pipeline, step by step (real core on Postgres)', function () {
  this.timeout(30_000);
  let pipeline: PipelineCore;
  let answer: (call: ProviderCall) => Promise<ProviderResponse>;
  const handler = () => runEndpoint(chatEndpoint, pipeline.deps);

  before(async () => {
    pipeline = await openPipelineCore('runner', new ScriptedProvider((call) => answer(call)));
  });
  after(() => pipeline?.close());
  beforeEach(() => {
    answer = async () => ({ type: 'body', status: 200, headers, body: Buffer.from(JSON.stringify(completion)) });
  });

  it('runs every step for a request that is answered: settled, the body released, the record complete', async () => {
    const { orgId, keyId, secret } = await pipeline.customer(1_000_000n);
    const connection = new MemoryConnection({ authorization: `Bearer ${secret}` }, CHAT);
    const { record, error } = await handler().handle(connection, 'gen-runnerOk');
    expect(error).to.equal(undefined);
    expect(connection.sent.map((sent) => sent.kind)).to.deep.equal(['json']);
    expect(connection.released).to.deep.equal([CHAT]);
    // 12 × 150 + 7 × 600 = 6,000 n$
    expect(record).to.deep.include({ endpoint: 'chat', keyId, orgId, spaceId: null, model: 'openai/gpt-4o-mini', provider: 'openai', cost: 6_000n });
    expect(record.closing?.kind).to.equal('settle');
    expect(await pipeline.core.accounts.balance(orgId)).to.deep.equal({ balance: 994_000n, reserved: 0n, available: 994_000n });
  });

  it('refuses a request without a key before its body is read: the record names only the endpoint', async () => {
    const connection = new MemoryConnection({}, CHAT);
    const { record, error } = await handler().handle(connection, 'gen-runnerNoKey');
    expect(error).to.have.property('code', 'invalid_api_key');
    expect(connection.bodyReads).to.equal(0);
    expect(connection.headersSet.get('X-PII-Masking')).to.equal('off');
    expect(record).to.deep.equal({ endpoint: 'chat' });
  });

  it('releases the body of a request refused after reading it, and reserves nothing', async () => {
    const { orgId, secret } = await pipeline.customer(1_000_000n);
    const body = { ...CHAT, model: 'openai/no-such-model' };
    const connection = new MemoryConnection({ authorization: `Bearer ${secret}` }, body);
    const { record, error } = await handler().handle(connection, 'gen-runnerBadModel');
    expect(error).to.have.property('code', 'model_not_found');
    expect(connection.released).to.deep.equal([body]);
    expect(record).to.not.have.property('model');
    expect(await pipeline.core.accounts.balance(orgId)).to.deep.equal({ balance: 1_000_000n, reserved: 0n, available: 1_000_000n });
  });

  it('records which per-minute limit refused a request', async () => {
    const { secret } = await pipeline.customer(1_000_000n, { tpm: 100 });
    // 11 + 100 = 111 tokens > 100
    const { record, error } = await handler().handle(new MemoryConnection({ authorization: `Bearer ${secret}` }, CHAT), 'gen-runnerLimited');
    expect(error).to.have.property('code', 'rate_limit_exceeded');
    expect(record.rateLimited).to.equal('tokens');
  });

  it("closes the reservation before it hands back the error of a provider that could not be reached, and records the provider's failure", async () => {
    const { orgId, secret } = await pipeline.customer(1_000_000n);
    answer = () => Promise.reject(new GatewayError('provider_error', 'connection refused', { cause: new Error('ECONNREFUSED') }));
    const { record, error } = await handler().handle(new MemoryConnection({ authorization: `Bearer ${secret}` }, CHAT), 'gen-runnerDown');
    expect(error).to.have.property('code', 'provider_error');
    expect(record).to.deep.include({ providerFailure: 'connection', cost: 0n, closing: { kind: 'release', reason: 'provider_error' } });
    expect(await pipeline.core.accounts.balance(orgId)).to.deep.equal({ balance: 1_000_000n, reserved: 0n, available: 1_000_000n });
  });
});
