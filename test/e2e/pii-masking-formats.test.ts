import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import { useGatewayHarness } from '../support/gateway-harness.js';

/**
 * PII masking end to end, through the official SDKs: each client format, pass-through and translated,
 * streaming and not. The request carries personal data in its system prompt, its message, a tool call of
 * its history and that call's result; the provider must receive none of it, only placeholders. The model
 * answers with the placeholders (split into pieces of a few characters when streamed, so that each one
 * spans events) in its text and in a tool call's arguments; the client must get every value back, and a
 * placeholder the request never gave out stays as the model wrote it.
 */
const NAME = 'John Smith';
const EMAIL = 'jane.doe@example.com';
const PHONE = '+44 20 7946 0958';
const CARD = '4111 1111 1111 1111';
const IBAN = 'DE89 3704 0044 0532 0130 00';
const ORIGINALS = [NAME, EMAIL, PHONE, CARD, IBAN];
const PLACEHOLDERS = ['[NAME_1]', '[EMAIL_1]', '[PHONE_1]', '[CARD_1]', '[IBAN_1]'];

const ANSWER = 'Dear [NAME_1]: mail [EMAIL_1], call [PHONE_1], card [CARD_1], IBAN [IBAN_1]; [EMAIL_9] stays.';
const UNMASKED = `Dear ${NAME}: mail ${EMAIL}, call ${PHONE}, card ${CARD}, IBAN ${IBAN}; [EMAIL_9] stays.`;
const TOOL_CALL = { name: 'send_mail', arguments: { to: '[EMAIL_1]', name: '[NAME_1]' } };
const UNMASKED_CALL = { name: 'send_mail', arguments: { to: EMAIL, name: NAME } };

const SYSTEM = `You assist ${NAME}.`;
const QUESTION = `Mail ${EMAIL} and call ${PHONE}.`;
const LOOKUP_ARGUMENTS = { iban: IBAN };
const LOOKUP_RESULT = `card ${CARD}`;

type Client = 'chat' | 'messages' | 'responses';
/** For each client format: the model whose provider speaks it (pass-through) and one whose provider does not (translated). */
const ROUTES: Record<Client, { passThrough: string; translated: string }> = {
  chat: { passThrough: 'openai/gpt-4o-mini', translated: 'anthropic/claude-sonnet-4-5' },
  messages: { passThrough: 'anthropic/claude-sonnet-4-5', translated: 'openai/gpt-4o-mini' },
  responses: { passThrough: 'openai/gpt-4o-mini', translated: 'anthropic/claude-sonnet-4-5' },
};

interface Answer {
  text: string;
  /** The text as the stream's deltas add it up (streams only). */
  streamedText?: string;
  toolCalls: Array<{ name: string; arguments: unknown }>;
}

describe('PII masking end to end (official SDKs)', function () {
  this.timeout(60_000);
  const harness = useGatewayHarness();
  let maskingHeaders: Array<string | null> = [];
  const watchingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    maskingHeaders.push(response.headers.get('x-pii-masking'));
    return response;
  };

  async function ask(client: Client, secret: string, model: string, stream: boolean): Promise<Answer> {
    const base = harness().gateway.url;
    if (client === 'chat') {
      const openai = new OpenAI({ apiKey: secret, baseURL: `${base}/v1`, maxRetries: 0, fetch: watchingFetch });
      const params = {
        model,
        max_tokens: 200,
        messages: [
          { role: 'system' as const, content: SYSTEM },
          { role: 'user' as const, content: QUESTION },
          { role: 'assistant' as const, content: null, tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 'lookup', arguments: JSON.stringify(LOOKUP_ARGUMENTS) } }] },
          { role: 'tool' as const, tool_call_id: 'call_1', content: LOOKUP_RESULT },
        ],
        tools: ['lookup', 'send_mail'].map((name) => ({ type: 'function' as const, function: { name, parameters: { type: 'object', properties: {} } } })),
      };
      const completion = stream ? await openai.chat.completions.stream(params).finalChatCompletion() : await openai.chat.completions.create(params);
      const message = completion.choices[0]!.message;
      return {
        text: message.content ?? '',
        toolCalls: (message.tool_calls ?? []).map((call) => (call.type === 'function' ? { name: call.function.name, arguments: JSON.parse(call.function.arguments) } : { name: '?', arguments: null })),
      };
    }
    if (client === 'messages') {
      const anthropic = new Anthropic({ apiKey: secret, baseURL: base, maxRetries: 0, fetch: watchingFetch });
      const params = {
        model,
        max_tokens: 200,
        system: SYSTEM,
        messages: [
          { role: 'user' as const, content: QUESTION },
          { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'toolu_1', name: 'lookup', input: LOOKUP_ARGUMENTS }] },
          { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_1', content: LOOKUP_RESULT }] },
        ],
        tools: ['lookup', 'send_mail'].map((name) => ({ name, input_schema: { type: 'object' as const, properties: {} } })),
      };
      const message = stream ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.create(params);
      return {
        text: message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(''),
        toolCalls: message.content.flatMap((block) => (block.type === 'tool_use' ? [{ name: block.name, arguments: block.input }] : [])),
      };
    }
    const openai = new OpenAI({ apiKey: secret, baseURL: `${base}/v1`, maxRetries: 0, fetch: watchingFetch });
    const params = {
      model,
      max_output_tokens: 200,
      instructions: SYSTEM,
      input: [
        { role: 'user' as const, content: QUESTION },
        { type: 'function_call' as const, call_id: 'call_1', name: 'lookup', arguments: JSON.stringify(LOOKUP_ARGUMENTS) },
        { type: 'function_call_output' as const, call_id: 'call_1', output: LOOKUP_RESULT },
      ],
      tools: ['lookup', 'send_mail'].map((name) => ({ type: 'function' as const, name, parameters: { type: 'object', properties: {} }, strict: false })),
    };
    let streamedText: string | undefined;
    let response;
    if (stream) {
      const events = openai.responses.stream(params);
      streamedText = '';
      for await (const event of events) if (event.type === 'response.output_text.delta') streamedText += event.delta;
      response = await events.finalResponse();
    } else {
      response = await openai.responses.create(params);
    }
    return {
      text: response.output.flatMap((item) => (item.type === 'message' ? item.content.flatMap((part) => (part.type === 'output_text' ? [part.text] : [])) : [])).join(''),
      ...(streamedText === undefined ? {} : { streamedText }),
      toolCalls: response.output.flatMap((item) => (item.type === 'function_call' ? [{ name: item.name, arguments: JSON.parse(item.arguments) }] : [])),
    };
  }

  for (const client of ['chat', 'messages', 'responses'] as const) {
    for (const route of ['passThrough', 'translated'] as const) {
      for (const stream of [false, true]) {
        it(`${client}, ${route === 'passThrough' ? 'pass-through' : 'translated'}, ${stream ? 'streaming' : 'not streaming'}: the provider sees placeholders only, the client every value`, async () => {
          const model = ROUTES[client][route];
          // an organization with the option, and no X-PII-Masking header: its setting applies
          const { orgId, secret } = await harness().admin.organizationWithKey({ credits: '10', organization: { pii_masking: true } });
          const fake = model.startsWith('anthropic/') ? harness().anthropic : harness().openai;
          fake.reset();
          // pieces of about four characters: every placeholder of the answer spans two or three events
          fake.enqueue({ text: ANSWER, deltas: Math.ceil(ANSWER.length / 4), toolCalls: [TOOL_CALL], usage: { inputTokens: 20, outputTokens: 10 } });
          maskingHeaders = [];

          const answer = await ask(client, secret, model, stream);
          expect(answer.text).to.equal(UNMASKED);
          if (answer.streamedText !== undefined) expect(answer.streamedText).to.equal(UNMASKED);
          expect(answer.toolCalls).to.deep.equal([UNMASKED_CALL]);
          expect(maskingHeaders.at(-1)).to.equal('applied');

          const sent = JSON.stringify(fake.lastRequest!.body);
          for (const original of ORIGINALS) expect(sent, 'the provider received an original value').not.to.include(original);
          for (const placeholder of PLACEHOLDERS) expect(sent).to.include(placeholder);

          // tokens 20 in, 10 out: openai 20 × 150 + 10 × 600 = 9,000 n$; anthropic 20 × 3,000 + 10 × 15,000 = 210,000 n$;
          // plus the test catalog's masking fee, $0.002 = 2,000,000 n$
          const money = await harness().settledMoney(orgId);
          expect(money.reserved).to.equal(0n);
          expect(10_000_000_000n - money.balance).to.equal((model.startsWith('anthropic/') ? 210_000n : 9_000n) + 2_000_000n);
        });
      }
    }
  }

});
