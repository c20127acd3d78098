import { openAiPath } from '../openai/openai-endpoints.js';
import type { ProviderApi } from '../provider-api.js';

/**
 * OpenAI paths, plus `/messages` under the same base for servers that also speak the messages format
 * (OpenRouter: `https://openrouter.ai/api/v1/messages`, [OR-SPEC]). The catalog's `formats` says whether
 * a given server does.
 */
export function openAiCompatiblePath(api: ProviderApi): string | undefined {
  return api === 'messages' ? '/messages' : openAiPath(api);
}
