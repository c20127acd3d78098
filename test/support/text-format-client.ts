import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { SseEvent } from '../../src/formats/sse-event.js';
import { validateChatStream } from './stream-validators/chat-stream-validator.js';
import { validateMessagesStream } from './stream-validators/messages-stream-validator.js';
import { validateResponsesStream } from './stream-validators/responses-stream-validator.js';
import { chatSdkFinal, messagesSdkFinal, responsesSdkFinal } from './format-fixtures/sdk-accumulators.js';
import { parseSseText } from './format-fixtures/sse-text.js';

/**
 * A client of one of the three text formats calling the gateway over HTTP with plain `fetch`: the raw
 * answer (JSON or SSE events) for checks of the wire, plus what the official SDKs make of a stream (their
 * own accumulators fed with the exact events received), for checks of what a user sees.
 */
export type ClientFormat = 'chat' | 'messages' | 'responses';
export const CLIENT_FORMATS: readonly ClientFormat[] = ['chat', 'messages', 'responses'];

export const CLIENT_PATHS: Readonly<Record<ClientFormat, string>> = {
  chat: '/v1/chat/completions',
  messages: '/v1/messages',
  responses: '/v1/responses',
};

export interface GatewayAnswer {
  readonly status: number;
  readonly headers: Headers;
  /** The JSON body (undefined for a stream). */
  readonly body?: any;
  /** The SSE events (undefined for a JSON answer). */
  readonly events?: SseEvent[];
}

export async function postText(baseUrl: string, format: ClientFormat, secret: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<GatewayAnswer> {
  const auth: Record<string, string> = secret === undefined ? {} : format === 'messages' ? { 'x-api-key': secret } : { authorization: `Bearer ${secret}` };
  const response = await fetch(`${baseUrl}${CLIENT_PATHS[format]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth, ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) return { status: response.status, headers: response.headers, events: parseSseText(text) };
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

export interface TextRequestOptions {
  readonly stream: boolean;
  readonly maxTokens?: number;
  /** Stop sequences (chat `stop`, messages `stop_sequences`; the responses format has none). */
  readonly stop?: readonly string[];
}

/** A one-turn request in the client's format. A chat stream asks for the usage chunk, as billing-aware clients do. */
export function textRequest(format: ClientFormat, model: string, options: TextRequestOptions): Record<string, unknown> {
  const maxTokens = options.maxTokens ?? 200;
  switch (format) {
    case 'chat':
      return {
        model,
        max_tokens: maxTokens,
        messages: [{ role: 'user', content: 'hello' }],
        stream: options.stream,
        ...(options.stream ? { stream_options: { include_usage: true } } : {}),
        ...(options.stop ? { stop: options.stop } : {}),
      };
    case 'messages':
      return { model, max_tokens: maxTokens, messages: [{ role: 'user', content: 'hello' }], stream: options.stream, ...(options.stop ? { stop_sequences: options.stop } : {}) };
    case 'responses':
      return { model, max_output_tokens: maxTokens, input: 'hello', stream: options.stream };
  }
}

/** The stream validator of the client's format (test/support/stream-validators/). */
export function streamViolations(format: ClientFormat, events: readonly SseEvent[], includeUsage = true): string[] {
  switch (format) {
    case 'chat':
      return validateChatStream(events, { includeUsage });
    case 'messages':
      return validateMessagesStream(events);
    case 'responses':
      return validateResponsesStream(events);
  }
}

export type SdkFinal =
  | { readonly format: 'chat'; readonly value: OpenAI.ChatCompletion }
  | { readonly format: 'messages'; readonly value: Anthropic.Message }
  | { readonly format: 'responses'; readonly value: OpenAI.Responses.Response };

/** What the official SDK's stream helper accumulates from these events (rejects when the SDK throws). */
export async function sdkFinal(format: ClientFormat, events: readonly SseEvent[], includeUsage = true): Promise<SdkFinal> {
  switch (format) {
    case 'chat':
      return { format, value: await chatSdkFinal(events, includeUsage) };
    case 'messages':
      return { format, value: await messagesSdkFinal(events) };
    case 'responses':
      return { format, value: await responsesSdkFinal(events) };
  }
}

/** How an answer ended and what text it showed, in one shape for every format (JSON body or SDK final object). */
export interface AnswerOutcome {
  /** chat `finish_reason`, messages `stop_reason`, responses `status`. */
  readonly stop: string | null;
  /** messages `stop_sequence`, responses `incomplete_details`; null elsewhere. */
  readonly detail: unknown;
  readonly text: string;
  /** Messages: the content block types in order; responses: the output item types; chat: [] */
  readonly blocks: readonly string[];
}

export function outcomeOf(format: ClientFormat, answer: any): AnswerOutcome {
  switch (format) {
    case 'chat': {
      const choice = answer.choices[0];
      return { stop: choice.finish_reason, detail: null, text: choice.message.content ?? '', blocks: [] };
    }
    case 'messages':
      return {
        stop: answer.stop_reason,
        detail: answer.stop_sequence,
        text: answer.content.flatMap((block: any) => (block.type === 'text' ? [block.text] : [])).join(''),
        blocks: answer.content.map((block: any) => block.type),
      };
    case 'responses':
      return {
        stop: answer.status,
        detail: answer.incomplete_details,
        text: answer.output.flatMap((item: any) => (item.type === 'message' ? item.content.map((part: any) => part.text ?? '') : [])).join(''),
        blocks: answer.output.map((item: any) => item.type),
      };
  }
}
