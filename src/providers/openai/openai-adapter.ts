import type { ProviderAdapter } from '../provider-adapter.js';
import { openAiPath, openAiVideoPath } from './openai-endpoints.js';
import { describeOpenAiError } from './openai-error-description.js';
import { openAiHeaders } from './openai-headers.js';
import { openAiSideUsage } from './openai-side-usage.js';

export const openAiAdapter: ProviderAdapter = {
  kind: 'openai',
  path: openAiPath,
  videoPath: openAiVideoPath,
  headers: openAiHeaders,
  describeError: describeOpenAiError,
  sideUsage: openAiSideUsage,
};
