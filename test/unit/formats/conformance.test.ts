import { expect } from 'chai';
import type { FormatName } from '../../../src/formats/canonical/format-name.js';
import { FORMAT_NAMES } from '../../../src/formats/canonical/format-name.js';
import type { ClientStream, EncoderOptions } from '../../../src/formats/canonical/stream-codec.js';
import { StreamTranslator } from '../../../src/formats/canonical/stream-translator.js';
import { validateChatStream } from '../../support/stream-validators/chat-stream-validator.js';
import { formatCodecs } from '../../../src/formats/format-codecs.js';
import { validateMessagesStream } from '../../support/stream-validators/messages-stream-validator.js';
import { createPassThroughStream, passThroughResponse } from '../../../src/formats/pass-through.js';
import { validateResponsesStream } from '../../support/stream-validators/responses-stream-validator.js';
import type { SseEvent } from '../../../src/formats/sse-event.js';
import { translateResponse } from '../../../src/formats/translate.js';
import { expectedView, viewOf, type AnswerView } from '../../support/format-fixtures/client-views.js';
import { ANSWERS } from '../../support/format-fixtures/provider-answers.js';
import type { AnswerSpec } from '../../../ops/provider-answers/answer-spec.js';
import { providerResponse, providerStream } from '../../../ops/provider-answers/provider-answers.js';
import { chatSdkFinal, messagesSdkFinal, responsesSdkFinal } from '../../support/format-fixtures/sdk-accumulators.js';

/**
 * Every client format × every provider format, for every answer of provider-answers.ts, streaming and not:
 * the translated answer shows the user what the provider said (modulo the documented losses), the stream
 * passes the validators, and the official SDK's stream helper accumulates it to the non-streamed answer.
 */
const IDENTITY = { requestId: 'gen-2kQvX9TestRequestId01', created: 1_750_000_000 } as const;

type Mode = 'translated' | 'pass-through';

function modelFor(provider: FormatName): string {
  return provider === 'messages' ? 'anthropic/claude-opus-4-8' : 'openai/gpt-5.4';
}

function clientStream(provider: FormatName, client: FormatName, mode: Mode, options: EncoderOptions): ClientStream {
  return mode === 'pass-through'
    ? createPassThroughStream(client, options)
    : new StreamTranslator(formatCodecs[provider].createDecoder(), formatCodecs[client].createEncoder(options));
}

function run(stream: ClientStream, events: readonly SseEvent[]): SseEvent[] {
  const out: SseEvent[] = [];
  for (const event of events) stream.push(event, out);
  stream.end(out);
  return out;
}

function validate(client: FormatName, events: readonly SseEvent[], options: EncoderOptions): string[] {
  switch (client) {
    case 'chat':
      return validateChatStream(events, { includeUsage: options.includeUsage, id: options.requestId, model: options.model });
    case 'messages':
      return validateMessagesStream(events);
    case 'responses':
      return validateResponsesStream(events);
  }
}

async function sdkFinal(client: FormatName, events: readonly SseEvent[], includeUsage: boolean): Promise<unknown> {
  switch (client) {
    case 'chat':
      return chatSdkFinal(events, includeUsage);
    case 'messages':
      return messagesSdkFinal(events);
    case 'responses':
      return responsesSdkFinal(events);
  }
}

/** The chat SDK overwrites unknown delta fields instead of appending, so reasoning is compared separately. */
function comparable(client: FormatName, body: unknown, includeUsage: boolean): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  if (client === 'chat') {
    const message = ((copy.choices as Array<Record<string, unknown>>)[0]!.message ?? {}) as Record<string, unknown>;
    delete message.reasoning;
    delete message.reasoning_details;
    // The SDK's own conveniences (maybeParseChatCompletion).
    delete message.parsed;
    for (const call of (message.tool_calls as Array<{ function: Record<string, unknown> }> | undefined) ?? []) {
      delete call.function.parsed_arguments;
      call.function.arguments = sameJson(call.function.arguments);
    }
    if (!includeUsage) delete copy.usage;
  }
  if (client === 'responses') {
    // The SDK adds its own conveniences: output_text, output_parsed and each text part's `parsed`.
    delete copy.output_text;
    delete copy.output_parsed;
    for (const item of (copy.output as Array<Record<string, unknown> & { content?: Array<Record<string, unknown>> }>) ?? []) {
      for (const part of item.content ?? []) delete part.parsed;
      delete item.parsed_arguments;
      if (item.type === 'function_call') item.arguments = sameJson(item.arguments);
    }
  }
  if (client === 'messages') {
    delete copy.parsed_output;
    // Anthropic's stream carries the split of cache writes in `message_start` only, where the SDK reads it; a
    // translated stream starts before its provider has said anything of the cache, so the split travels in
    // `message_delta`, which the SDK does not read it from (the raw event has it; test/e2e/token-kinds).
    if (copy.usage && typeof copy.usage === 'object') delete (copy.usage as Record<string, unknown>).cache_creation;
  }
  return copy;
}

/**
 * Anthropic's non-streaming answer holds tool input as an object (re-serialised compactly) while its stream
 * carries the model's own JSON text: the same value, not the same bytes.
 */
function sameJson(text: unknown): unknown {
  return typeof text === 'string' && text !== '' ? JSON.parse(text) : text;
}

function chatReasoningOf(events: readonly SseEvent[]): string {
  let text = '';
  for (const event of events) {
    if (!event.data.startsWith('{')) continue;
    const chunk = JSON.parse(event.data) as { choices?: Array<{ delta?: { reasoning?: string } }> };
    text += chunk.choices?.[0]?.delta?.reasoning ?? '';
  }
  return text;
}

function withoutChatStreamReasoning(view: AnswerView): AnswerView {
  return { ...view, reasoning: '', signature: undefined };
}

for (const provider of FORMAT_NAMES) {
  for (const client of FORMAT_NAMES) {
    const modes: Mode[] = provider === client ? ['translated', 'pass-through'] : ['translated'];
    for (const mode of modes) {
      describe(`formats: ${client} client ← ${provider} provider (${mode})`, () => {
        const model = modelFor(provider);
        const identity = { ...IDENTITY, model };
        const translate = (spec: AnswerSpec) =>
          mode === 'pass-through'
            ? passThroughResponse(client, providerResponse(provider, spec), identity).body
            : translateResponse(providerResponse(provider, spec), provider, client, identity).body;

        for (const spec of ANSWERS) {
          const expected = expectedView(spec, provider, client);
          if (!spec.failMidStream) {
            it(`${spec.name}: non-streaming answer`, () => {
              const body = translate(spec);
              expect(viewOf(client, body)).to.deep.equal(expected);
              if (client === 'chat') expect((body as { id: string }).id).to.equal(identity.requestId);
              expect((body as { model: string }).model).to.equal(model);
            });
          }

          const usageVariants = client === 'chat' ? [true, false] : [true];
          for (const includeUsage of usageVariants) {
            const label = client === 'chat' ? ` (include_usage ${includeUsage})` : '';
            it(`${spec.name}: stream${label}`, async () => {
              const options: EncoderOptions = { ...identity, includeUsage };
              const stream = clientStream(provider, client, mode, options);
              const events = run(stream, providerStream(provider, spec));
              expect(validate(client, events, options), 'stream grammar').to.deep.equal([]);
              expect(stream.done).to.equal(true);
              if (spec.failMidStream) {
                expect(stream.error, 'error kept for settlement').to.not.equal(undefined);
                if (client === 'responses') {
                  // The gateway ends with response.failed (the SDK resolves with status failed); a provider's
                  // own flat `error` event, passed through, makes the SDK reject. Either way the user sees it.
                  const final = await responsesSdkFinal(events).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
                  if (final instanceof Error) expect(mode).to.equal('pass-through');
                  else {
                    expect(final.status).to.equal('failed');
                    expect(final.error?.message).to.be.a('string');
                  }
                } else {
                  let thrown: unknown;
                  await sdkFinal(client, events, includeUsage).catch((error: unknown) => (thrown = error));
                  expect(thrown, 'the SDK throws on the error event').to.be.instanceOf(Error);
                  expect((thrown as { status?: unknown }).status).to.equal(undefined);
                }
                return;
              }
              expect(stream.usage, 'usage kept for settlement').to.deep.include({ inputTokens: spec.usage.input, outputTokens: spec.usage.output, cachedInputTokens: spec.usage.cached });
              const final = await sdkFinal(client, events, includeUsage);
              const view = viewOf(client, final);
              const shown = { ...expected, ...(includeUsage ? {} : { usage: undefined }) };
              if (client === 'chat') {
                expect(withoutChatStreamReasoning(view)).to.deep.equal(withoutChatStreamReasoning(shown));
                expect(chatReasoningOf(events)).to.equal(expected.reasoning);
              } else {
                expect(view).to.deep.equal(shown);
              }
              if (mode === 'translated') {
                expect(comparable(client, final, includeUsage), 'SDK accumulation equals the non-streaming answer').to.deep.equal(comparable(client, translate(spec), includeUsage));
              }
            });
          }
        }
      });
    }
  }
}
