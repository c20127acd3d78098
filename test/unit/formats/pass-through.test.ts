import { expect } from 'chai';
import { dropUnsupportedNativeParams, dropUnsupportedParams } from '../../../src/formats/canonical/drop-unsupported-params.js';
import { validateChatStream } from '../../support/stream-validators/chat-stream-validator.js';
import { parseChatRequest } from '../../../src/formats/chat/parse-chat-request.js';
import type { JsonObject } from '../../../src/formats/json-value.js';
import { validateMessagesStream } from '../../support/stream-validators/messages-stream-validator.js';
import { createPassThroughStream, passThroughRequest, passThroughResponse, replaceModelInRawJson } from '../../../src/formats/pass-through.js';
import { validateResponsesStream } from '../../support/stream-validators/responses-stream-validator.js';
import type { SseEvent } from '../../../src/formats/sse-event.js';
import { translateRequest } from '../../../src/formats/translate.js';
import { ANSWERS } from '../../support/format-fixtures/provider-answers.js';
import { chatProviderStream } from '../../../ops/provider-answers/chat-provider-answer.js';
import { messagesProviderResponse, messagesProviderStream } from '../../../ops/provider-answers/messages-provider-answer.js';
import { responsesProviderStream } from '../../../ops/provider-answers/responses-provider-answer.js';

const IDENTITY = { requestId: 'gen-PassThroughTest00001', model: 'openai/gpt-5.4', created: 1_750_000_000 } as const;
const TEXT = ANSWERS[0]!;

function run(format: 'chat' | 'messages' | 'responses', includeUsage: boolean, events: readonly SseEvent[]): SseEvent[] {
  const stream = createPassThroughStream(format, { ...IDENTITY, includeUsage });
  return [...events.flatMap((event) => stream.push(event)), ...stream.end()];
}

describe('formats: pass-through', () => {
  it('chat streams always ask upstream for usage, keeping the other stream options', () => {
    const { body } = passThroughRequest('chat', { model: 'openai/gpt-5.4', messages: [], stream: true, stream_options: { include_obfuscation: false } }, { model: 'gpt-5.4' });
    expect(body.stream_options).to.deep.equal({ include_obfuscation: false, include_usage: true });
    expect(passThroughRequest('chat', { model: 'a', messages: [] }, { model: 'b' }).body).to.not.have.property('stream_options');
  });

  it('responses are never stored upstream unless the body says so', () => {
    expect(passThroughRequest('responses', { model: 'a', input: 'x' }, { model: 'b' }).body.store).to.equal(false);
  });

  it('chat stream: the usage chunk is hidden from a client that did not ask, but read for billing', () => {
    const stream = createPassThroughStream('chat', { ...IDENTITY, includeUsage: false });
    const out = [...chatProviderStream(TEXT).flatMap((event) => stream.push(event)), ...stream.end()];
    expect(validateChatStream(out, { includeUsage: false, id: IDENTITY.requestId, model: IDENTITY.model })).to.deep.equal([]);
    expect(out.some((event) => event.data.includes('"usage":{'))).to.equal(false);
    expect(stream.usage).to.deep.include({ inputTokens: 100, outputTokens: 20 });
  });

  it('chat stream: the usage chunk reaches a client that asked; id and model are the gateway’s', () => {
    const out = run('chat', true, chatProviderStream(TEXT));
    expect(validateChatStream(out, { includeUsage: true, id: IDENTITY.requestId, model: IDENTITY.model })).to.deep.equal([]);
    expect(out.filter((event) => event.data.includes('"usage":{'))).to.have.length(1);
    expect(out.some((event) => event.data.includes('chatcmpl-'))).to.equal(false);
  });

  it('chat stream: usage riding on the finish chunk (some providers) is removed when not asked for', () => {
    const finish = JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } });
    const first = JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }] });
    const stream = createPassThroughStream('chat', { ...IDENTITY, includeUsage: false });
    const out = [...stream.push({ data: first }), ...stream.push({ data: finish }), ...stream.push({ data: '[DONE]' })];
    expect(validateChatStream(out, { includeUsage: false })).to.deep.equal([]);
    expect(stream.usage).to.deep.include({ inputTokens: 3, outputTokens: 4 });
  });

  it('messages: input_tokens is the whole input, cache included (spec 2.2), streaming or not', () => {
    const body = passThroughResponse('messages', messagesProviderResponse(TEXT), IDENTITY).body as { usage: JsonObject; model: string };
    expect(body.usage.input_tokens).to.equal(100);
    expect(body.model).to.equal(IDENTITY.model);
    const out = run('messages', true, messagesProviderStream(TEXT));
    expect(validateMessagesStream(out)).to.deep.equal([]);
    const start = JSON.parse(out[0]!.data) as { message: { usage: { input_tokens: number }; model: string } };
    expect(start.message.usage.input_tokens).to.equal(100);
    expect(start.message.model).to.equal(IDENTITY.model);
  });

  it('messages: content events are forwarded as the same objects (no copy)', () => {
    const events = messagesProviderStream(TEXT);
    const stream = createPassThroughStream('messages', { ...IDENTITY, includeUsage: true });
    const delta = events.find((event) => event.data.includes('text_delta'))!;
    events.slice(0, events.indexOf(delta)).forEach((event) => stream.push(event));
    expect(stream.push(delta)[0]).to.equal(delta);
  });

  it('a gateway error cuts a pass-through stream with the format’s last event (key revoked)', () => {
    const revoked = { status: 401, type: 'authentication_error', code: 'key_revoked', message: 'the API key was revoked while the request ran' } as const;
    const chat = createPassThroughStream('chat', { ...IDENTITY, includeUsage: true });
    const chatOut = [...chatProviderStream(TEXT).slice(0, 3).flatMap((event) => chat.push(event)), ...chat.fail(revoked), ...chat.push({ data: '[DONE]' })];
    expect(validateChatStream(chatOut, { includeUsage: true })).to.deep.equal([]);
    expect(JSON.parse(chatOut.at(-1)!.data)).to.deep.equal({ error: { type: 'authentication_error', code: 'key_revoked', message: revoked.message, param: null } });

    const messages = createPassThroughStream('messages', { ...IDENTITY, includeUsage: true });
    const messagesOut = [...messagesProviderStream(TEXT).slice(0, 4).flatMap((event) => messages.push(event)), ...messages.fail(revoked)];
    expect(validateMessagesStream(messagesOut)).to.deep.equal([]);
    expect(JSON.parse(messagesOut.at(-1)!.data)).to.deep.equal({ type: 'error', error: { type: 'authentication_error', message: revoked.message, code: 'key_revoked' } });

    const responses = createPassThroughStream('responses', { ...IDENTITY, includeUsage: true });
    const responsesOut = [...responsesProviderStream(TEXT).slice(0, 5).flatMap((event) => responses.push(event)), ...responses.fail(revoked)];
    expect(validateResponsesStream(responsesOut)).to.deep.equal([]);
    const last = JSON.parse(responsesOut.at(-1)!.data) as { type: string; sequence_number: number; response: { status: string; error: { code: string } } };
    expect(last).to.deep.include({ type: 'response.failed', sequence_number: 5 });
    expect(last.response.error.code).to.equal('key_revoked');
  });

  describe('raw body model replacement', () => {
    it('replaces the top-level model wherever it is, never a nested one', () => {
      const raw = '{ "messages": [{"role":"user","content":"say \\"model\\": \\"x\\""}], "tools": [{"function":{"parameters":{"properties":{"model":{"type":"string"}}}}}], "model" : "openai/gpt-5.4", "n": 1 }';
      const replaced = replaceModelInRawJson(raw, 'gpt-5.4-2026');
      expect(JSON.parse(replaced!)).to.deep.equal({ ...JSON.parse(raw), model: 'gpt-5.4-2026' });
      expect(replaceModelInRawJson('{"model":"a","x":[1,{"model":"b"}]}', 'c')).to.equal('{"model":"c","x":[1,{"model":"b"}]}');
    });

    it('gives up (undefined) on bodies it cannot handle safely', () => {
      expect(replaceModelInRawJson('[1]', 'c')).to.equal(undefined);
      expect(replaceModelInRawJson('{"model":3}', 'c')).to.equal(undefined);
      expect(replaceModelInRawJson('{"x":1}', 'c')).to.equal(undefined);
      expect(replaceModelInRawJson('{"x":"unterminated', 'c')).to.equal(undefined);
    });
  });

  describe('unsupported parameters', () => {
    it('drops native fields by name, with stop ↔ stop_sequences and reasoning names as one', () => {
      const body = { model: 'm', temperature: 0.2, stop_sequences: ['x'], thinking: { type: 'enabled', budget_tokens: 2000 }, messages: [] };
      const { value, dropped } = dropUnsupportedNativeParams(body, ['temperature', 'stop', 'reasoning_effort', 'seed']);
      expect(value).to.deep.equal({ model: 'm', messages: [] });
      expect(dropped).to.have.members(['temperature', 'stop_sequences', 'thinking']);
    });

    it('never aliases output caps (o-series reject max_tokens but need max_completion_tokens)', () => {
      const { value } = dropUnsupportedNativeParams({ model: 'm', max_tokens: 5, max_completion_tokens: 5 }, ['max_tokens']);
      expect(value).to.deep.equal({ model: 'm', max_completion_tokens: 5 });
    });

    it('drops canonical parameters and extras before rendering', () => {
      const request = parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature: 0.3, top_p: 0.5, seed: 9, logit_bias: { 1: 2 }, stop: 'x' });
      const { value, dropped } = dropUnsupportedParams(request, ['temperature', 'seed', 'stop']);
      expect(value.temperature).to.equal(undefined);
      expect(value.topP).to.equal(0.5);
      expect(value.stopSequences).to.deep.equal([]);
      expect(value.extra.fields).to.deep.equal({ logit_bias: { 1: 2 } });
      expect(dropped).to.have.members(['temperature', 'seed', 'stop']);
    });

    it('translation drops what the target format has no counterpart for, and says so', () => {
      const request = parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], seed: 9, n: 2, logit_bias: { 1: 2 }, metadata: { a: 'b' } });
      const toMessages = translateRequest(request, 'messages', { model: 'claude' });
      expect(toMessages.body).to.not.have.any.keys('seed', 'n', 'logit_bias', 'metadata');
      expect(toMessages.dropped).to.have.members(['seed', 'n', 'logit_bias', 'metadata']);
      const toResponses = translateRequest(request, 'responses', { model: 'gpt', dropParams: ['seed'] });
      expect(toResponses.body.metadata).to.deep.equal({ a: 'b' });
      expect(toResponses.dropped).to.have.members(['seed', 'n', 'logit_bias']);
    });
  });
});
