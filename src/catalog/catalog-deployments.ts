import type { ModelCategory } from '../billing/categories.js';
import type { DeploymentEntry, ModelEntry, PricingEntry, RetryEntry } from './catalog-schema.js';
import type { CatalogModel, Deployment, Provider, RetryRules } from './catalog.js';

/** What a model entry's deployments need of the rest of the catalog, and how a problem is reported. */
export interface DeploymentContext {
  readonly providers: ReadonlyMap<string, Provider>;
  readonly label: string;
  /** Throws the catalog's error for this entry. */
  readonly fail: (where: string, what: string) => never;
  /** A price's problem for a category (load-catalog.ts `checkPricing`), undefined when it is fine. */
  readonly checkPricing: (category: ModelCategory, pricing: PricingEntry) => string | undefined;
  /** The catalog's PII masking fee, given to a text deployment's own pricing when it sets none. */
  readonly piiMaskingFeeUsd: string;
  readonly textOnlyKinds: ReadonlySet<Provider['kind']>;
}

/**
 * A model entry's deployments. Without `deployments:` it has one, at the provider its id names, under its
 * `upstream`: a catalog written before deployments existed means what it meant. Each deployment's id is
 * `<model id>#<its id: or its index>`, unique across the catalog.
 */
export function deploymentsOf(entry: ModelEntry, context: DeploymentContext): Deployment[] {
  const { providers, label, fail } = context;
  const defaultUpstream = entry.upstream ?? entry.id.slice(entry.id.indexOf('/') + 1);
  if (!entry.deployments) {
    const providerName = entry.id.slice(0, entry.id.indexOf('/'));
    const provider = providers.get(providerName) ?? fail(label, `provider "${providerName}" is not declared under providers`);
    return [{ id: `${entry.id}#0`, provider, upstream: defaultUpstream, weight: 1, priceKey: entry.id, pricingUsd: undefined }];
  }
  const seen = new Set<string>();
  return entry.deployments.map((deployment: DeploymentEntry, index) => {
    const where = `${label}.deployments[${index}]`;
    const provider = providers.get(deployment.provider) ?? fail(where, `provider "${deployment.provider}" is not declared under providers`);
    if (entry.category !== 'text' && context.textOnlyKinds.has(provider.kind)) {
      fail(where, `a ${entry.category} model cannot be served by provider "${provider.name}": providers of kind ${provider.kind} offer text models only`);
    }
    const id = `${entry.id}#${deployment.id ?? index}`;
    if (seen.has(id)) fail(where, `duplicate deployment id "${id}"`);
    seen.add(id);
    let pricingUsd = deployment.pricing;
    if (pricingUsd) {
      const problem = context.checkPricing(entry.category, pricingUsd);
      if (problem) fail(where, problem);
      if (entry.category === 'text') pricingUsd = { ...pricingUsd, pii_masking_fee: pricingUsd.pii_masking_fee ?? context.piiMaskingFeeUsd };
    }
    return { id, provider, upstream: deployment.upstream ?? defaultUpstream, weight: deployment.weight, priceKey: pricingUsd ? id : entry.id, pricingUsd };
  });
}

/** A model's retry rules; without `max_attempts`, each of its deployments is tried once. */
export function retryRulesOf(entry: RetryEntry, deployments: number): RetryRules {
  return {
    maxAttempts: entry.max_attempts ?? deployments,
    budgetMs: entry.budget_ms,
    initialBackoffMs: entry.initial_backoff_ms,
    maxBackoffMs: entry.max_backoff_ms,
    cooldownAfterFailures: entry.cooldown_after_failures,
    cooldownMs: entry.cooldown_ms,
  };
}

/**
 * Fallbacks are checked once every model is known: each names a model of the catalog, not the model
 * itself, of the same category (a chat request cannot end on an embeddings model).
 */
export function checkFallbacks(models: ReadonlyMap<string, CatalogModel>, fail: (where: string, what: string) => never): void {
  for (const model of models.values()) {
    for (const [index, fallback] of model.fallbacks.entries()) {
      const where = `model ${model.id}: fallbacks[${index}]`;
      const target = models.get(fallback);
      if (!target) fail(where, `"${fallback}" is not a model of the catalog`);
      if (fallback === model.id) fail(where, 'a model cannot be its own fallback');
      if (target.category !== model.category) fail(where, `"${fallback}" is ${article(target.category)} ${target.category} model; a fallback of a ${model.category} model must be a ${model.category} model`);
    }
    if (new Set(model.fallbacks).size !== model.fallbacks.length) fail(`model ${model.id}: fallbacks`, 'a model is listed twice');
  }
}

/** The model as one of its deployments serves it: what an attempt sends, and to whom. */
export function servedBy(model: CatalogModel, deployment: Deployment): CatalogModel {
  return { ...model, provider: deployment.provider, upstream: deployment.upstream };
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');
