import type { Provider } from '../../../src/catalog/catalog.js';
import type { ProviderKind } from '../../../src/catalog/catalog-schema.js';

/** A catalog provider record pointing at a fake (or at nothing). */
export function testProvider(kind: ProviderKind, baseUrl: string, options: { apiKey?: string; timeoutMs?: number } = {}): Provider {
  return {
    name: `test-${kind}`,
    kind,
    baseUrl,
    apiKey: options.apiKey,
    apiKeyEnv: undefined,
    formats: kind === 'anthropic' ? ['messages'] : ['chat', 'responses'],
    timeoutMs: options.timeoutMs ?? 10_000,
  };
}

/** A promise and the function that settles it: to hold a fake's last stream event until the test has seen the first. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
