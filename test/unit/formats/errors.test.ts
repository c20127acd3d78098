import { expect } from 'chai';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { renderError } from '../../../src/errors/render-error.js';
import { errorFromGatewayError } from '../../../src/formats/canonical/canonical-error.js';
import { FORMAT_NAMES } from '../../../src/formats/canonical/format-name.js';
import { formatCodecs } from '../../../src/formats/format-codecs.js';
import { createClientStream } from '../../../src/formats/translate.js';
import { validateChatStream } from '../../support/stream-validators/chat-stream-validator.js';
import { validateMessagesStream } from '../../support/stream-validators/messages-stream-validator.js';
import { validateResponsesStream } from '../../support/stream-validators/responses-stream-validator.js';
import { ANSWERS, PROVIDER_ERRORS } from '../../support/format-fixtures/provider-answers.js';
import { providerStream } from '../../../ops/provider-answers/provider-answers.js';

const EXPECTED = {
  chat: { status: 429, type: 'rate_limit_error' },
  messages: { status: 529, type: 'api_error' },
  responses: { status: 400, type: 'invalid_request_error' },
} as const;

const IDENTITY = { requestId: 'gen-ErrorTest00000000001', model: 'openai/gpt-5.4', created: 1_750_000_000, includeUsage: true } as const;

describe('formats: errors', () => {
  for (const provider of FORMAT_NAMES) {
    for (const client of FORMAT_NAMES) {
      it(`a ${provider} provider error reads and renders for a ${client} client`, () => {
        const { status, body } = PROVIDER_ERRORS[provider];
        const error = formatCodecs[provider].parseError(body, status);
        expect(error).to.deep.include({ status, type: EXPECTED[provider].type, code: 'provider_error' });
        expect(error.message).to.be.a('string').and.not.equal('');
        const rendered = formatCodecs[client].renderError(error);
        if (client === 'messages') expect(rendered).to.deep.equal({ type: 'error', error: { type: error.type, message: error.message } });
        else expect(rendered).to.deep.equal({ error: { type: error.type, code: 'provider_error', message: error.message, param: null } });
      });
    }
  }

  it('renders gateway errors exactly as src/errors/render-error.ts does', () => {
    for (const error of [new GatewayError('key_revoked'), new GatewayError('rate_limit_exceeded'), new GatewayError('invalid_request', 'x: bad', { param: 'x' })]) {
      const canonical = errorFromGatewayError(error);
      expect(formatCodecs.chat.renderError(canonical)).to.deep.equal(renderError(error, 'openai'));
      expect(formatCodecs.messages.renderError(canonical)).to.deep.equal(renderError(error, 'messages'));
    }
  });

  it('statuses without a body type still map (OpenRouter numeric codes, Anthropic types)', () => {
    expect(formatCodecs.chat.parseError({ error: { code: 402, message: 'no credits' } })).to.deep.include({ status: 402, type: 'insufficient_quota_error' });
    expect(formatCodecs.messages.parseError({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).to.deep.include({ status: 529, type: 'api_error' });
    expect(formatCodecs.messages.parseError({ type: 'error', error: { type: 'rate_limit_error', message: 'slow' } })).to.deep.include({ status: 429, type: 'rate_limit_error' });
  });

  for (const provider of FORMAT_NAMES) {
    for (const client of FORMAT_NAMES) {
      it(`key revoked mid-stream: a ${client} client ← ${provider} provider stream ends with the error as its last event`, () => {
        const stream = createClientStream(provider, client, IDENTITY);
        const events = providerStream(provider, ANSWERS[1]!);
        const out = events.slice(0, Math.floor(events.length / 2)).flatMap((event) => stream.push(event));
        out.push(...stream.fail(errorFromGatewayError(new GatewayError('key_revoked'))));
        out.push(...events.slice(Math.floor(events.length / 2)).flatMap((event) => stream.push(event)), ...stream.end());
        const violations =
          client === 'chat' ? validateChatStream(out, { includeUsage: true }) : client === 'messages' ? validateMessagesStream(out) : validateResponsesStream(out);
        expect(violations).to.deep.equal([]);
        expect(out.at(-1)!.data).to.include('key_revoked');
        expect(stream.error?.code).to.equal('key_revoked');
      });
    }
  }
});
