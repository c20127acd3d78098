import type { ProviderHeaders } from '../provider-adapter.js';

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** Bearer authentication; a keyless OpenAI-compatible server (a local vLLM) gets no Authorization at all. */
export function openAiHeaders(apiKey: string | undefined): ProviderHeaders {
  return {
    credentials: apiKey === undefined || apiKey === '' ? NO_HEADERS : { authorization: `Bearer ${apiKey}` },
    defaults: NO_HEADERS,
  };
}
