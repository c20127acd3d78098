import type { ProviderApi } from '../provider-api.js';

/** Anthropic's base URL has no `/v1` (https://api.anthropic.com), so its one API path carries it. */
export function anthropicPath(api: ProviderApi): string | undefined {
  return api === 'messages' ? '/v1/messages' : undefined;
}

export function anthropicVideoPath(): undefined {
  return undefined;
}
