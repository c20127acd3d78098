import type { ProviderAdapter } from '../provider-adapter.js';
import { noSideApiUsage } from '../side-api-usage.js';
import { anthropicPath, anthropicVideoPath } from './anthropic-endpoints.js';
import { describeAnthropicError } from './anthropic-error-description.js';
import { anthropicHeaders } from './anthropic-headers.js';

export const anthropicAdapter: ProviderAdapter = {
  kind: 'anthropic',
  path: anthropicPath,
  videoPath: anthropicVideoPath,
  headers: anthropicHeaders,
  describeError: describeAnthropicError,
  sideUsage: noSideApiUsage,
};
