import type { ProviderKind } from '../catalog/catalog-schema.js';
import { anthropicAdapter } from './anthropic/anthropic-adapter.js';
import { openAiAdapter } from './openai/openai-adapter.js';
import { openAiCompatibleAdapter } from './openai-compatible/openai-compatible-adapter.js';
import type { ProviderAdapter } from './provider-adapter.js';

/** Every provider kind of the catalog has exactly one adapter (the Record type makes a missing one a compile error). */
export const providerRegistry: Readonly<Record<ProviderKind, ProviderAdapter>> = {
  openai: openAiAdapter,
  anthropic: anthropicAdapter,
  'openai-compatible': openAiCompatibleAdapter,
};

export function providerAdapter(kind: ProviderKind): ProviderAdapter {
  return providerRegistry[kind];
}
