import { expect } from 'chai';
import type Anthropic from '@anthropic-ai/sdk';
import { FORMAT_NAMES } from '../../../src/formats/canonical/format-name.js';
import { formatCodecs } from '../../../src/formats/format-codecs.js';
import { validateMessagesStream } from '../../support/stream-validators/messages-stream-validator.js';
import type { SseEvent } from '../../../src/formats/sse-event.js';
import { createClientStream, translateRequest, translateResponse } from '../../../src/formats/translate.js';
import { clientRequest } from '../../support/format-fixtures/client-requests.js';
import { ANSWERS } from '../../support/format-fixtures/provider-answers.js';
import { providerResponse, providerStream } from '../../../ops/provider-answers/provider-answers.js';
import { chatSdkFinal, messagesSdkFinal, responsesSdkFinal } from '../../support/format-fixtures/sdk-accumulators.js';

/**
 * One block per bullet of peer-pitfalls.md, "Streaming translation". The full matrix is in
 * conformance.test.ts and request-translation.test.ts; these name the failure each check prevents.
 */
const IDENTITY = { requestId: 'gen-PeerPitfalls000000001', model: 'anthropic/claude-opus-4-8', created: 1_750_000_000, includeUsage: true } as const;
const TOOLS = ANSWERS[1]!;
const REASONING = ANSWERS[4]!;

function stream(provider: (typeof FORMAT_NAMES)[number], client: (typeof FORMAT_NAMES)[number], events: readonly SseEvent[]): SseEvent[] {
  const translator = createClientStream(provider, client, IDENTITY);
  return [...events.flatMap((event) => translator.push(event)), ...translator.end()];
}

describe('formats: peer pitfalls (streaming translation)', () => {
  describe('empty tool_use.input, end_turn instead of tool_use (LiteLLM #25321, #25561, #34692)', () => {
    for (const provider of FORMAT_NAMES) {
      it(`${provider} provider → messages client keeps both arguments and stop_reason tool_use, streamed or not`, async () => {
        const body = translateResponse(providerResponse(provider, TOOLS), provider, 'messages', IDENTITY).body as unknown as Anthropic.Message;
        const streamed = await messagesSdkFinal(stream(provider, 'messages', providerStream(provider, TOOLS)));
        for (const message of [body, streamed]) {
          expect(message.stop_reason).to.equal('tool_use');
          const inputs = message.content.flatMap((block) => (block.type === 'tool_use' ? [block.input] : []));
          expect(inputs).to.deep.equal([{ location: 'Paris, FR', unit: 'c' }, { timezone: 'Europe/Paris' }]);
        }
      });
    }
    it('messages client → chat and responses providers keep the arguments of earlier tool calls', () => {
      const request = formatCodecs.messages.parseRequest(clientRequest('messages', 'tool calls and results'));
      const chat = JSON.stringify(translateRequest(request, 'chat', { model: 'm' }).body);
      const responses = JSON.stringify(translateRequest(request, 'responses', { model: 'm' }).body);
      for (const body of [chat, responses]) expect(body).to.include(JSON.stringify('{"location":"Paris, FR"}'));
    });
  });

  describe('thinking inside a text block, duplicate message_start / content_block_stop, block not found (LiteLLM #32357, #33224, #37273, #13373)', () => {
    for (const provider of FORMAT_NAMES) {
      it(`${provider} provider reasoning reaches a messages client as a thinking block before the text`, async () => {
        const events = stream(provider, 'messages', providerStream(provider, REASONING));
        expect(validateMessagesStream(events)).to.deep.equal([]);
        expect(events.filter((event) => event.event === 'message_start')).to.have.length(1);
        const message = await messagesSdkFinal(events);
        expect(message.content.map((block) => block.type)).to.deep.equal(['thinking', 'text']);
        expect(message.content[1]).to.deep.equal({ type: 'text', text: '2 + 2 = 4.' });
      });
    }
  });

  describe('usage shape, missing role or usage, several tool calls, only the last system message (LiteLLM #24176; Portkey #1399, #1259, #1275, #457)', () => {
    for (const provider of FORMAT_NAMES) {
      it(`${provider} provider: the official SDKs accumulate role, usage and both tool calls`, async () => {
        const chat = await chatSdkFinal(stream(provider, 'chat', providerStream(provider, TOOLS)), true);
        expect(chat.choices[0]!.message.role).to.equal('assistant');
        expect(chat.choices[0]!.message.tool_calls).to.have.length(2);
        expect(chat.usage).to.deep.include({ prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 });
        const message = await messagesSdkFinal(stream(provider, 'messages', providerStream(provider, TOOLS)));
        expect(message.usage).to.deep.include({ input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 40 });
        const response = await responsesSdkFinal(stream(provider, 'responses', providerStream(provider, TOOLS)));
        expect(response.usage).to.deep.include({ input_tokens: 100, output_tokens: 20, total_tokens: 120 });
        expect(response.output.filter((item) => item.type === 'function_call')).to.have.length(2);
      });
    }
    for (const client of FORMAT_NAMES) {
      it(`${client} client: every system instruction is kept, in order`, () => {
        const request = formatCodecs[client].parseRequest(clientRequest(client, 'system prompts'));
        expect(request.system.map((item) => item.text)).to.deep.equal(['You are terse.', 'Answer in French.', 'Never use emoji.']);
        const system = translateRequest(request, 'messages', { model: 'm' }).body.system as Array<{ text: string }>;
        expect(system.map((block) => block.text)).to.deep.equal(['You are terse.', 'Answer in French.', 'Never use emoji.']);
      });
    }
  });

  describe('a tool-use block start nested too deep (Portkey stream generator)', () => {
    for (const provider of FORMAT_NAMES) {
      it(`${provider} provider → messages client: content_block_start carries a flat tool_use block`, () => {
        const starts = stream(provider, 'messages', providerStream(provider, TOOLS))
          .filter((event) => event.event === 'content_block_start')
          .map((event) => (JSON.parse(event.data) as { content_block: Record<string, unknown> }).content_block)
          .filter((block) => block.type === 'tool_use');
        expect(starts).to.deep.equal([
          { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: {} },
          { type: 'tool_use', id: 'call_unLAR8MvFNptuiZK6K6HCy5k', name: 'get_time', input: {} },
        ]);
      });
    }
  });
});
