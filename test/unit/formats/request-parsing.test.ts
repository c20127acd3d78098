import { expect } from 'chai';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { parseChatRequest } from '../../../src/formats/chat/parse-chat-request.js';
import { formatCodecs } from '../../../src/formats/format-codecs.js';
import { parseMessagesRequest } from '../../../src/formats/messages/parse-messages-request.js';
import { parseResponsesRequest } from '../../../src/formats/responses/parse-responses-request.js';
import { translateRequest, translateResponse } from '../../../src/formats/translate.js';
import { ANSWERS } from '../../support/format-fixtures/provider-answers.js';
import { messagesProviderResponse } from '../../../ops/provider-answers/messages-provider-answer.js';
import { responsesProviderResponse } from '../../../ops/provider-answers/responses-provider-answer.js';

function rejection(parse: () => unknown): GatewayError {
  try {
    parse();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

const IDENTITY = { requestId: 'gen-ParseTest00000000001', model: 'anthropic/claude-opus-4-8', created: 1_750_000_000 } as const;

describe('formats: client request parsing', () => {
  it('names the field at fault (chat)', () => {
    const error = rejection(() => parseChatRequest({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 3 }] }] }));
    expect(error.code).to.equal('invalid_request');
    expect(error.status).to.equal(400);
    expect(error.param).to.equal('messages[0].content[0].text');
    expect(error.message).to.match(/^messages\[0\]\.content\[0\]\.text: /);
  });

  it('names the field at fault (messages, responses)', () => {
    expect(rejection(() => parseMessagesRequest({ model: 'm', messages: [] })).param).to.equal('max_tokens');
    expect(rejection(() => parseMessagesRequest({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'tool_result' }] }] })).param).to.equal(
      'messages[0].content[0].tool_use_id',
    );
    expect(rejection(() => parseResponsesRequest({ model: 'm', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] })).param).to.equal('input[0].call_id');
    expect(rejection(() => parseChatRequest({ model: 'm', messages: [{ role: 'robot', content: 'x' }] })).param).to.equal('messages[0].role');
  });

  it('responses: stored history is refused with stateful_not_supported (spec 4.3)', () => {
    expect(rejection(() => parseResponsesRequest({ model: 'm', input: 'x', store: true })).code).to.equal('stateful_not_supported');
    const previous = rejection(() => parseResponsesRequest({ model: 'm', input: 'x', previous_response_id: 'resp_1' }));
    expect(previous).to.deep.include({ code: 'stateful_not_supported', param: 'previous_response_id' });
    expect(parseResponsesRequest({ model: 'm', input: 'x', store: false }).messages).to.have.length(1);
  });

  it('accepts content it cannot translate without rejecting the request (pass-through must keep working)', () => {
    const request = parseChatRequest({ model: 'm', messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAA', format: 'wav' } }] }] });
    expect(request.messages[0]?.content[0]).to.deep.include({ type: 'opaque', kind: 'input_audio' });
    const rendered = translateRequest(request, 'messages', { model: 'claude' });
    expect(rendered.dropped).to.include('messages.input_audio');
  });

  it('chat: the client usage request is kept apart from the provider request, which always asks', () => {
    const request = parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true });
    expect(request.streamUsage).to.equal(false);
    expect(translateRequest(request, 'chat', { model: 'u' }).body.stream_options).to.deep.equal({ include_usage: true });
  });

  it('messages: a thinking turn with its signature reaches a messages provider from every client format', () => {
    // A chat client got Claude's reasoning with its signature in reasoning_details and sends it back.
    const fromChat = translateResponse(messagesProviderResponse(ANSWERS[4]!), 'messages', 'chat', IDENTITY).body as { choices: Array<{ message: Record<string, unknown> }> };
    const chatTurn = { ...fromChat.choices[0]!.message };
    const chatRequest = parseChatRequest({ model: 'm', messages: [{ role: 'user', content: '2+2?' }, chatTurn, { role: 'user', content: 'and 3+3?' }] });
    const fromResponses = translateResponse(messagesProviderResponse(ANSWERS[4]!), 'messages', 'responses', IDENTITY).body as { output: unknown[] };
    const responsesRequest = parseResponsesRequest({ model: 'm', input: [{ role: 'user', content: '2+2?' }, ...(fromResponses.output as object[]), { role: 'user', content: 'and 3+3?' }] });
    for (const request of [chatRequest, responsesRequest]) {
      const body = translateRequest(request, 'messages', { model: 'claude-opus-4-8' }).body as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
      expect(body.messages[1]!.content[0]).to.deep.equal({ type: 'thinking', thinking: 'Let me think about 2+2.', signature: ANSWERS[4]!.reasoning!.signature });
      expect(body.messages.map((turn) => turn.role)).to.deep.equal(['user', 'assistant', 'user']);
    }
  });

  it('responses provider reasoning comes back to a responses-shaped client as summary and encrypted content', () => {
    const body = translateResponse(responsesProviderResponse(ANSWERS[4]!), 'responses', 'messages', IDENTITY).body as { content: Array<Record<string, unknown>> };
    expect(body.content[0]).to.deep.equal({ type: 'thinking', thinking: 'Let me think about 2+2.', signature: ANSWERS[4]!.reasoning!.signature });
  });

  it('messages requires max_tokens: the caller’s fallback (the model ceiling) is used when the client sent none', () => {
    const request = formatCodecs.responses.parseRequest({ model: 'm', input: 'x' });
    expect(translateRequest(request, 'messages', { model: 'c', maxOutputTokensFallback: 128_000 }).body.max_tokens).to.equal(128_000);
    expect(translateRequest(request, 'messages', { model: 'c' }).body.max_tokens).to.equal(4096);
  });

  it('messages: thinking is kept within Anthropic’s bounds and temperature is dropped with it', () => {
    const request = parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], reasoning_effort: 'max', max_completion_tokens: 3000, temperature: 0.5 });
    const rendered = translateRequest(request, 'messages', { model: 'c' });
    expect(rendered.body.thinking).to.deep.equal({ type: 'enabled', budget_tokens: 2999 });
    expect(rendered.body).to.not.have.property('temperature');
    expect(rendered.dropped).to.include('temperature');
    const tiny = translateRequest(parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], reasoning_effort: 'low', max_completion_tokens: 500 }), 'messages', { model: 'c' });
    expect(tiny.body).to.not.have.property('thinking');
    expect(tiny.dropped).to.include('reasoning');
  });

  it('messages: tool arguments that are not a JSON object are refused, naming the message', () => {
    const request = parseChatRequest({
      model: 'm',
      messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '[1,2]' } }] }],
    });
    expect(rejection(() => translateRequest(request, 'messages', { model: 'c' }))).to.deep.include({ code: 'invalid_request', param: 'messages[0]' });
  });

  it('parallel_tool_calls: false becomes disable_parallel_tool_use on messages', () => {
    const request = parseChatRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      parallel_tool_calls: false,
    });
    expect(translateRequest(request, 'messages', { model: 'c' }).body.tool_choice).to.deep.equal({ type: 'auto', disable_parallel_tool_use: true });
  });
});
