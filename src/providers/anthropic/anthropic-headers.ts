import type { ProviderHeaders } from '../provider-adapter.js';

/** [ANT-SDK src/client.ts] the version the SDKs pin; a caller passing its own `anthropic-version` keeps it. */
export const ANTHROPIC_VERSION = '2023-06-01';

const DEFAULTS: Readonly<Record<string, string>> = Object.freeze({ 'anthropic-version': ANTHROPIC_VERSION });
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

export function anthropicHeaders(apiKey: string | undefined): ProviderHeaders {
  return {
    credentials: apiKey === undefined || apiKey === '' ? NO_HEADERS : { 'x-api-key': apiKey },
    defaults: DEFAULTS,
  };
}
