import { expect } from 'chai';
import type { JsonObject } from '../../../src/formats/json-value.js';
import { createClientStream, translateResponse } from '../../../src/formats/translate.js';
import { ANSWERS } from '../../support/format-fixtures/provider-answers.js';
import { providerResponse, providerStream } from '../../../ops/provider-answers/provider-answers.js';

/**
 * A translated responses answer echoes the request's `text` setting, as OpenAI's `Response` does: clients
 * read the output format back from it (LangChain's ChatOpenAI parses a streamed structured answer only
 * when the final response says `json_schema`).
 */
const TEXT: JsonObject = {
  format: { type: 'json_schema', name: 'city', strict: true, schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};
const IDENTITY = { requestId: 'gen-TextEchoTest000000001', model: 'anthropic/claude-sonnet-4-5', created: 1_750_000_000 } as const;
const answer = ANSWERS[0]!;

describe('formats: responses answers echo the text setting', () => {
  for (const provider of ['chat', 'messages'] as const) {
    it(`in the answer and in every response object of the stream (${provider} provider)`, () => {
      const body = translateResponse(providerResponse(provider, answer), provider, 'responses', { ...IDENTITY, responsesText: TEXT }).body;
      expect(body.text).to.deep.equal(TEXT);

      const stream = createClientStream(provider, 'responses', { ...IDENTITY, includeUsage: true, responsesText: TEXT });
      const events = [...providerStream(provider, answer).flatMap((event) => stream.push(event)), ...stream.end()];
      const responses = events.map((event) => JSON.parse(event.data) as { type: string; response?: { text: unknown } }).filter((data) => data.response);
      expect(responses.map((data) => data.type)).to.include.members(['response.created', 'response.completed']);
      for (const data of responses) expect(data.response!.text).to.deep.equal(TEXT);
    });
  }

  it('says plain text when the request did not set it', () => {
    const body = translateResponse(providerResponse('chat', answer), 'chat', 'responses', IDENTITY).body;
    expect(body.text).to.deep.equal({ format: { type: 'text' } });
  });
});
