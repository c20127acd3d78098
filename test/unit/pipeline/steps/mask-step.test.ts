import { expect } from 'chai';
import { chatEndpoint, messagesEndpoint } from '../../../../src/endpoints/text/text-endpoints.js';
import type { JsonObject } from '../../../../src/formats/json-value.js';
import { maskStep } from '../../../../src/pipeline/steps/mask-step.js';
import { MemoryConnection, type SentAnswer } from '../../../support/memory-connection.js';
import { bodyRead, testCaller, testCatalog } from '../../../support/pipeline-stages.js';

const EMAIL = 'jane.doe@example.com';

describe('pipeline step: mask', () => {
  const masked = (connection: MemoryConnection, body: JsonObject, spec = chatEndpoint) => ({
    ...bodyRead(spec, body, testCaller({}, { piiMasking: true }), connection),
    masking: 'applied' as const,
  });

  it('masks the body the provider will see, and unmasks every answer on its way to the client', async () => {
    const connection = new MemoryConnection({ 'X-PII-Masking': 'on' });
    const stage = await maskStep({ catalog: await testCatalog() }, masked(connection, { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: `write to ${EMAIL}` }] }));
    expect(stage.body).to.deep.equal({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'write to [EMAIL_1]' }] });
    stage.connection.sendJson(200, { choices: [{ message: { content: 'Done: [EMAIL_1].' } }] });
    const stream = stage.connection.openStream();
    stream.write([{ data: JSON.stringify({ choices: [{ index: 0, delta: { content: 'to [EMAIL' }, finish_reason: null }] }) }]);
    stream.write([{ data: JSON.stringify({ choices: [{ index: 0, delta: { content: '_1]' }, finish_reason: 'stop' }] }) }, { data: '[DONE]' }]);
    stream.end();
    const [json, streamed] = connection.sent as [SentAnswer & { kind: 'json' }, SentAnswer & { kind: 'stream' }];
    expect(json.body).to.deep.equal({ choices: [{ message: { content: `Done: ${EMAIL}.` } }] });
    const text = streamed.events.filter((event) => event.data !== '[DONE]').map((event) => (JSON.parse(event.data) as { choices: [{ delta: { content: string } }] }).choices[0].delta.content);
    expect(text.join('')).to.equal(`to ${EMAIL}`);
  });

  it('passes a provider error on as the provider wrote it', async () => {
    const connection = new MemoryConnection();
    const stage = await maskStep({ catalog: await testCatalog() }, masked(connection, { model: 'anthropic/claude-sonnet-4-5', max_tokens: 5, messages: [{ role: 'user', content: EMAIL }] }, messagesEndpoint));
    stage.connection.sendProviderAnswer(400, { contentType: 'application/json' }, Buffer.from('{"error":{"message":"bad [EMAIL_1]"}}'));
    expect(connection.sent[0]).to.include({ kind: 'provider', body: '{"error":{"message":"bad [EMAIL_1]"}}' });
  });

  it('changes nothing when masking is off, or when nothing personal was found', async () => {
    const off = bodyRead(chatEndpoint, { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: EMAIL }] });
    expect(await maskStep({ catalog: await testCatalog() }, off)).to.equal(off);
    const connection = new MemoryConnection();
    const nothing = await maskStep({ catalog: await testCatalog() }, masked(connection, { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }));
    expect(nothing.connection).to.equal(connection);
  });

  it('an image model on chat completions: an explicit on is refused (400); the organization setting alone leaves it unmasked, and says off', async () => {
    const body = { model: 'openai/gpt-image-1', modalities: ['image'], messages: [{ role: 'user', content: `a portrait of ${EMAIL}` }] };
    const asked = new MemoryConnection({ 'X-PII-Masking': 'on' });
    const refusal = await maskStep({ catalog: await testCatalog() }, masked(asked, body)).catch((error: unknown) => error);
    expect(refusal).to.have.property('code', 'pii_masking_unsupported_endpoint');
    expect(asked.headersSet.get('X-PII-Masking')).to.equal('off');
    const byDefault = new MemoryConnection();
    const stage = await maskStep({ catalog: await testCatalog() }, masked(byDefault, body));
    expect(stage).to.include({ masking: 'off', body });
    expect(byDefault.headersSet.get('X-PII-Masking')).to.equal('off');
  });
});
