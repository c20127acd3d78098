import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { formatSseEvent, type SseEvent } from '../../../src/formats/sse-event.js';

/**
 * Feeds an SSE stream the gateway emitted to the official SDKs' own stream helpers, with a `fetch` that
 * answers from memory: what a real client would accumulate, not what our tests expect.
 */
function sseFetch(events: readonly SseEvent[]): typeof fetch {
  const body = events.map(formatSseEvent).join('');
  return async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

export async function chatSdkFinal(events: readonly SseEvent[], includeUsage: boolean): Promise<OpenAI.ChatCompletion> {
  const client = new OpenAI({ apiKey: 'x', baseURL: 'http://gateway.test/v1', fetch: sseFetch(events), maxRetries: 0 });
  const stream = client.chat.completions.stream({
    model: 'openai/test',
    messages: [{ role: 'user', content: 'hi' }],
    ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
  });
  return stream.finalChatCompletion();
}

export async function messagesSdkFinal(events: readonly SseEvent[]): Promise<Anthropic.Message> {
  const client = new Anthropic({ apiKey: 'x', baseURL: 'http://gateway.test', fetch: sseFetch(events), maxRetries: 0 });
  return client.messages.stream({ model: 'anthropic/test', max_tokens: 1024, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
}

export async function responsesSdkFinal(events: readonly SseEvent[]): Promise<OpenAI.Responses.Response> {
  const client = new OpenAI({ apiKey: 'x', baseURL: 'http://gateway.test/v1', fetch: sseFetch(events), maxRetries: 0 });
  return client.responses.stream({ model: 'openai/test', input: 'hi' }).finalResponse();
}
