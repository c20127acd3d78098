import { openAiVideoPath } from '../openai/openai-endpoints.js';
import { openAiHeaders } from '../openai/openai-headers.js';
import { openAiSideUsage } from '../openai/openai-side-usage.js';
import type { ProviderAdapter } from '../provider-adapter.js';
import { openAiCompatiblePath } from './openai-compatible-endpoints.js';
import { describeOpenAiCompatibleError } from './openai-compatible-error-description.js';

/** An OpenAI-style server that is not OpenAI (OpenRouter, vLLM, Ollama): OpenAI paths and auth, looser error shapes. */
export const openAiCompatibleAdapter: ProviderAdapter = {
  kind: 'openai-compatible',
  path: openAiCompatiblePath,
  videoPath: openAiVideoPath,
  headers: openAiHeaders,
  describeError: describeOpenAiCompatibleError,
  sideUsage: openAiSideUsage,
};
