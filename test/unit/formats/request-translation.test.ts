import { expect } from 'chai';
import { FORMAT_NAMES, type FormatName } from '../../../src/formats/canonical/format-name.js';
import type { JsonObject } from '../../../src/formats/json-value.js';
import { formatCodecs } from '../../../src/formats/format-codecs.js';
import { passThroughRequest } from '../../../src/formats/pass-through.js';
import { translateRequest } from '../../../src/formats/translate.js';
import { clientRequest, FIXTURE_CONSTANTS, REQUEST_SCENARIOS, type RequestScenario } from '../../support/format-fixtures/client-requests.js';
import { requestView, type RequestView } from '../../support/format-fixtures/request-views.js';

const FALLBACK = 4096;
const WEATHER = 'toolu_01A09q90qw90lq917835lq9';
const TIME = 'call_unLAR8MvFNptuiZK6K6HCy5k';

const LINES: Record<RequestScenario, string[]> = {
  'plain text': ['user:Hello'],
  'system prompts': ['system:You are terse.', 'system:Answer in French.', 'system:Never use emoji.', 'user:Hello'],
  'multi-turn': ['user:My name is Ada.', 'assistant:Nice to meet you, Ada.', 'user:What is my name?'],
  'tool calls and results': [
    'user:Weather and time in Paris?',
    'assistant:Checking both.',
    `assistant:call:${WEATHER}:get_weather:{"location":"Paris, FR"}`,
    `assistant:call:${TIME}:get_time:{"timezone":"Europe/Paris"}`,
    `tool:${WEATHER}:18°C, sunny`,
    `tool:${TIME}:14:05`,
  ],
  'image input': ['user:Compare these.', 'user:image:base64:image/png', `user:image:url:${FIXTURE_CONSTANTS.IMAGE_URL}`],
  'stop sequence': ['user:Count'],
  'max tokens': ['user:Essay'],
  reasoning: ['user:2+2?'],
};

function expected(client: FormatName, provider: FormatName, scenario: RequestScenario): RequestView {
  const cap = scenario === 'max tokens' ? 256 : scenario === 'reasoning' ? 8000 : client === 'messages' ? 4096 : provider === 'messages' ? FALLBACK : undefined;
  let reasoning: string | undefined;
  if (scenario === 'reasoning') {
    // high ↔ 4096 (LiteLLM's HIGH budget); a 4096 budget reads back as medium (LiteLLM buckets).
    if (provider === 'messages') reasoning = 'budget:4096';
    else reasoning = client === 'messages' ? 'effort:medium' : 'effort:high';
  }
  const tools = scenario === 'tool calls and results';
  return {
    lines: LINES[scenario],
    maxTokens: cap,
    stop: scenario === 'stop sequence' && client !== 'responses' && provider !== 'responses' ? ['4'] : [],
    tools: tools ? ['get_weather', 'get_time'] : [],
    toolChoice: tools ? 'required' : undefined,
    reasoning,
  };
}

describe('formats: request translation, every client × provider pair', () => {
  for (const client of FORMAT_NAMES) {
    for (const provider of FORMAT_NAMES) {
      describe(`${client} client → ${provider} provider`, () => {
        it('streaming: the provider is asked to stream, and a chat provider always for usage', () => {
          const request = formatCodecs[client].parseRequest({ ...clientRequest(client, 'plain text'), stream: true });
          expect(request.streamUsage).to.equal(client !== 'chat');
          const body = translateRequest(request, provider, { model: 'upstream-model' }).body;
          expect(body.stream).to.equal(true);
          if (provider === 'chat') expect(body.stream_options).to.deep.equal({ include_usage: true });
        });

        for (const scenario of REQUEST_SCENARIOS) {
          it(scenario, () => {
            const request = formatCodecs[client].parseRequest(clientRequest(client, scenario));
            const rendered = translateRequest(request, provider, { model: 'upstream-model', maxOutputTokensFallback: FALLBACK });
            expect(rendered.body.model).to.equal('upstream-model');
            expect(requestView(provider, rendered.body)).to.deep.equal(expected(client, provider, scenario));
            if (scenario === 'stop sequence' && provider === 'responses' && client !== 'responses') expect(rendered.dropped).to.include('stop');
          });
        }
      });
    }
  }

  for (const format of FORMAT_NAMES) {
    it(`${format} → ${format} is a pass-through: only the model changes, unknown fields survive`, () => {
      for (const scenario of REQUEST_SCENARIOS) {
        const body: JsonObject = { ...clientRequest(format, scenario), x_vendor_flag: { keep: [1, 2] }, seed: 7 };
        const { body: sent, dropped } = passThroughRequest(format, body, { model: 'upstream-model' });
        expect(dropped).to.deep.equal([]);
        const { model: _model, store: _store, ...rest } = sent;
        const { model: _original, ...original } = body;
        expect(rest).to.deep.equal(original);
        expect(sent.model).to.equal('upstream-model');
      }
    });
  }
});
