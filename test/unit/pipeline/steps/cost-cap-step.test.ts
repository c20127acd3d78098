import { expect } from 'chai';
import { embeddingsEndpoint } from '../../../../src/endpoints/embeddings/embeddings-endpoint.js';
import { imagesEndpoint } from '../../../../src/endpoints/images/images-endpoint.js';
import { withOutputCap } from '../../../../src/endpoints/text/output-cap.js';
import { chatEndpoint, messagesEndpoint, responsesEndpoint } from '../../../../src/endpoints/text/text-endpoints.js';
import type { EndpointRequest, EndpointSpec } from '../../../../src/endpoints/endpoint-spec.js';
import type { JsonObject } from '../../../../src/formats/json-value.js';
import { costCapStep } from '../../../../src/pipeline/steps/cost-cap-step.js';
import { estimateStep } from '../../../../src/pipeline/steps/estimate-step.js';
import { parseStep } from '../../../../src/pipeline/steps/parse-step.js';
import { MemoryConnection } from '../../../support/memory-connection.js';
import { bodyRead, NOW, testCaller, resolvedModel, testPrices } from '../../../support/pipeline-stages.js';

/**
 * The cost cap step on estimated requests. Amounts from the test catalog, in n$: openai/gpt-4o-mini costs
 * 150 n$ an input token and 600 an output token. `hello` is `{model, messages: [{role: user, content:
 * hello}]}`: "user" and "hello" are 1 token each, × 5/4 = 3, and two objects × 4 = 8: 11 input tokens,
 * 1,650 n$. With `max_tokens: 100` its reserve is 1,650 + 100 × 600 = 61,650 n$.
 */
const MODEL = 'openai/gpt-4o-mini';
const hello = (extra: JsonObject = {}): JsonObject => ({ model: MODEL, messages: [{ role: 'user', content: 'hello' }], ...extra });

async function estimated<Request extends EndpointRequest>(
  spec: EndpointSpec<Request>,
  body: JsonObject,
  options: { headers?: Record<string, string>; keyCap?: string; masking?: 'applied'; model?: string } = {},
) {
  const connection = new MemoryConnection(options.headers ?? {});
  const read = bodyRead(spec, body, testCaller({ maxCostPerRequest: options.keyCap ?? null }), connection);
  const parsed = parseStep({ ...read, masking: options.masking ?? 'off' });
  const stage = await estimateStep({ prices: await testPrices(), clock: { now: () => NOW } }, { ...parsed, ...(await resolvedModel(options.model ?? MODEL)) });
  return { stage, connection };
}

function refusalOf(run: () => unknown): { code: string; status: number; message: string } {
  try {
    run();
  } catch (error) {
    const { code, status, message } = error as { code: string; status: number; message: string };
    return { code, status, message };
  }
  return expect.fail('not refused');
}

describe('pipeline step: cost cap', () => {
  it('leaves a request without a cap as it is, and says nothing', async () => {
    const { stage, connection } = await estimated(chatEndpoint, hello({ max_tokens: 100 }));
    expect(costCapStep(stage)).to.equal(stage);
    expect(connection.headersSet.has('X-Max-Cost-Applied')).to.equal(false);
  });

  it('leaves a request that fits its cap as it is, and says which cap applied', async () => {
    const { stage, connection } = await estimated(chatEndpoint, hello({ max_tokens: 100 }), { headers: { 'x-max-cost-usd': '1' } });
    expect(costCapStep(stage)).to.equal(stage);
    expect(connection.headersSet.get('X-Max-Cost-Applied')).to.equal('1.00');
  });

  it('lowers max_tokens to the largest answer that fits, input included, and reserves exactly that', async () => {
    // cap $0.00003 = 30,000 n$: 1,650 + 600 t ≤ 30,000 → t ≤ 47.25 → 47 tokens, 1,650 + 28,200 = 29,850 n$
    const { stage, connection } = await estimated(chatEndpoint, hello({ max_tokens: 100 }), { headers: { 'X-Max-Cost-USD': '0.00003' } });
    const capped = costCapStep(stage);
    expect(capped.amount).to.equal(29_850n);
    expect(capped.request.maxOutputTokens).to.equal(47);
    expect(capped.body).to.deep.include({ max_tokens: 47 });
    expect(capped.estimate).to.deep.equal({ worstCase: { version: 2, inputTokens: 11, outputTokens: 47 }, rateLimitTokens: 58 });
    expect(connection.headersSet.get('X-Max-Cost-Applied')).to.equal('0.00003');
  });

  it("takes the lower of the header and the key's cap: the header cannot raise it", async () => {
    // the key's $0.00002 = 20,000 n$: 600 t ≤ 18,350 → 30 tokens, 1,650 + 18,000 = 19,650 n$
    const { stage, connection } = await estimated(chatEndpoint, hello({ max_tokens: 100 }), { headers: { 'x-max-cost-usd': '0.00003' }, keyCap: '20000' });
    expect(costCapStep(stage)).to.deep.include({ amount: 19_650n });
    expect(connection.headersSet.get('X-Max-Cost-Applied')).to.equal('0.00002');
    // the key's cap alone, when the client sends none; a lower header lowers it further (10,000 n$: 13 tokens, 9,450 n$)
    expect(costCapStep((await estimated(chatEndpoint, hello({ max_tokens: 100 }), { keyCap: '20000' })).stage).amount).to.equal(19_650n);
    expect(costCapStep((await estimated(chatEndpoint, hello({ max_tokens: 100 }), { headers: { 'x-max-cost-usd': '0.00001' }, keyCap: '20000' })).stage).amount).to.equal(9_450n);
  });

  it('sets a cap on a chat request that sent none (it reserved the model ceiling of 16,384 tokens)', async () => {
    const { stage } = await estimated(chatEndpoint, hello(), { headers: { 'x-max-cost-usd': '0.00003' } });
    expect(stage.amount).to.equal(1_650n + 16_384n * 600n);
    const capped = costCapStep(stage);
    expect(capped.body).to.deep.include({ max_completion_tokens: 47 });
    expect(capped.amount).to.equal(29_850n);
  });

  it('counts every answer of chat n and the masking fee of a masked request', async () => {
    // n = 2, cap 50,000 n$: 1,650 + 2 × 600 t ≤ 50,000 → t ≤ 40.3 → 40, 1,650 + 48,000 = 49,650 n$
    const twice = costCapStep((await estimated(chatEndpoint, hello({ max_tokens: 100, n: 2 }), { headers: { 'x-max-cost-usd': '0.00005' } })).stage);
    expect({ amount: twice.amount, tokens: twice.body.max_tokens, output: twice.estimate.worstCase.outputTokens }).to.deep.equal({ amount: 49_650n, tokens: 40, output: 80 });
    // masked: the $0.002 fee (2,000,000 n$) + 1,650 + 600 t ≤ 2,030,000 → t ≤ 47.25 → 47: 2,029,850 n$
    const masked = costCapStep((await estimated(chatEndpoint, hello({ max_tokens: 100 }), { headers: { 'x-max-cost-usd': '0.00203' }, masking: 'applied' })).stage);
    expect({ amount: masked.amount, masked: masked.estimate.worstCase.piiMaskedRequests }).to.deep.equal({ amount: 2_029_850n, masked: 1 });
  });

  it('lowers the field each format reads: messages max_tokens, responses max_output_tokens', async () => {
    // the messages body counts as the chat one: 47 tokens, 29,850 n$
    const messages = costCapStep((await estimated(messagesEndpoint, hello({ max_tokens: 100 }), { headers: { 'x-max-cost-usd': '0.00003' } })).stage);
    expect({ body: messages.body.max_tokens, request: messages.request.maxOutputTokens, amount: messages.amount }).to.deep.equal({ body: 47, request: 47, amount: 29_850n });
    // responses: "hello" 1 token × 5/4 = 2, one object 4: 6 input tokens, 900 n$; 900 + 600 t ≤ 30,000 → 48, 29,700 n$
    const responses = costCapStep((await estimated(responsesEndpoint, { model: MODEL, input: 'hello', max_output_tokens: 100 }, { headers: { 'x-max-cost-usd': '0.00003' } })).stage);
    expect({ body: responses.body.max_output_tokens, request: responses.request.maxOutputTokens, amount: responses.amount }).to.deep.equal({ body: 48, request: 48, amount: 29_700n });
  });

  it('refuses with 402 when the input and a one-token answer cost more than the cap', async () => {
    // 1,650 + 600 = 2,250 n$ > 2,000
    const { stage, connection } = await estimated(chatEndpoint, hello({ max_tokens: 100 }), { headers: { 'x-max-cost-usd': '0.000002' } });
    expect(refusalOf(() => costCapStep(stage))).to.deep.equal({
      code: 'request_cost_cap_exceeded',
      status: 402,
      message: "its input (with a one-token answer) costs up to 0.00000225 USD, more than its cost cap of 0.000002 USD (X-Max-Cost-USD or the key's max_cost_per_request_usd); nothing was charged",
    });
    expect(connection.headersSet.get('X-Max-Cost-Applied')).to.equal('0.000002');
  });

  it('refuses images over the cap rather than generate fewer', async () => {
    // 3 images × $0.04 = $0.12
    const { stage } = await estimated(imagesEndpoint, { model: 'openai/gpt-image-1', prompt: 'a lighthouse', n: 3 }, { headers: { 'x-max-cost-usd': '0.10' }, model: 'openai/gpt-image-1' });
    expect(refusalOf(() => costCapStep(stage)).message).to.match(/^this request can cost up to 0\.12 USD, more than its cost cap of 0\.10 USD/);
  });

  it('refuses embeddings whose input costs more than the cap', async () => {
    const { stage } = await estimated(embeddingsEndpoint, { model: 'openai/text-embedding-3-small', input: 'hello' }, {
      headers: { 'x-max-cost-usd': '0.000000001' },
      model: 'openai/text-embedding-3-small',
    });
    expect(refusalOf(() => costCapStep(stage)).code).to.equal('request_cost_cap_exceeded');
  });

  for (const header of ['abc', '0', '-1', '0.0000000001']) {
    it(`refuses X-Max-Cost-USD: ${header} as a bad request`, async () => {
      const { stage } = await estimated(chatEndpoint, hello({ max_tokens: 100 }), { headers: { 'x-max-cost-usd': header } });
      expect(refusalOf(() => costCapStep(stage))).to.include({ code: 'invalid_request', status: 400 });
    });
  }
});

describe('the output cap of a body that goes to the provider as sent', () => {
  it('lowers each chat cap the client sent, and sets max_completion_tokens when it sent none', () => {
    expect(withOutputCap('chat', { max_tokens: 900 }, 40, [])).to.deep.equal({ max_tokens: 40 });
    expect(withOutputCap('chat', { max_tokens: 900, max_completion_tokens: 800 }, 40, [])).to.deep.equal({ max_tokens: 40, max_completion_tokens: 40 });
    expect(withOutputCap('chat', {}, 40, [])).to.deep.equal({ max_completion_tokens: 40 });
  });

  it('adds the other chat cap when the model drops the one the client sent, so the provider still gets one', () => {
    expect(withOutputCap('chat', { max_tokens: 900 }, 40, ['max_tokens'])).to.deep.equal({ max_tokens: 40, max_completion_tokens: 40 });
    expect(withOutputCap('chat', {}, 40, ['max_completion_tokens'])).to.deep.equal({ max_tokens: 40 });
  });
});
