import { readFile, stat } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import type { ModelCategory } from '../billing/categories.js';
import {
  catalogFileSchema,
  modelEntrySchema,
  REQUIRED_PRICES,
  type ModelEntry,
  type PricingEntry,
  type ProviderEntry,
  type TextFormat,
} from './catalog-schema.js';
import {
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_PROVIDER_TIMEOUT_MS,
  type Catalog,
  type CatalogModel,
  type Deployment,
  type Provider,
} from './catalog.js';
import { checkFallbacks, deploymentsOf, retryRulesOf } from './catalog-deployments.js';
import { pricingFromEntry } from './pricing.js';

/** A catalog that must not be served; the message names the file and the entry at fault. */
export class CatalogError extends Error {
  override name = 'CatalogError';
}

export async function loadCatalogFile(path: string, env: NodeJS.ProcessEnv = process.env): Promise<Catalog> {
  let text: string;
  let modified: Date;
  try {
    [text, modified] = await Promise.all([readFile(path, 'utf8'), stat(path).then((s) => s.mtime)]);
  } catch (error) {
    throw new CatalogError(`catalog ${path}: cannot be read (${(error as Error).message})`);
  }
  return parseCatalog(text, { source: path, env, defaultCreated: Math.floor(modified.getTime() / 1000) });
}

export interface ParseCatalogOptions {
  source: string;
  env?: NodeJS.ProcessEnv;
  /** `created` shown for models that do not set one (unix seconds). */
  defaultCreated?: number;
}

/** Provider kinds with no embeddings, image, transcription or video API (Anthropic's offers messages only). */
const TEXT_ONLY_KINDS: ReadonlySet<Provider['kind']> = new Set(['anthropic']);

export function parseCatalog(text: string, options: ParseCatalogOptions): Catalog {
  const { source, env = process.env, defaultCreated = 0 } = options;
  const fail = (where: string, what: string): never => {
    throw new CatalogError(`catalog ${source}: ${where}: ${what}`);
  };

  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    return fail('YAML', (error as Error).message.split('\n')[0] ?? 'cannot be parsed');
  }
  const file = catalogFileSchema.safeParse(document);
  if (!file.success) return fail(issuePath(file.error), file.error.issues[0]!.message);

  const providers = new Map<string, Provider>();
  for (const [name, entry] of Object.entries(file.data.providers)) {
    providers.set(name, toProvider(name, entry, env));
  }

  const models = new Map<string, CatalogModel>();
  file.data.models.forEach((raw, index) => {
    const label = `models[${index}]${hasId(raw) ? ` (${raw.id})` : ''}`;
    const parsed = modelEntrySchema.safeParse(raw);
    if (!parsed.success) return fail(`${label}${suffix(issuePath(parsed.error))}`, parsed.error.issues[0]!.message);
    const entry = parsed.data;
    if (models.has(entry.id)) return fail(label, `duplicate model id "${entry.id}"`);
    const pricingProblem = checkPricing(entry.category, entry.pricing);
    if (pricingProblem) return fail(label, pricingProblem);
    if (entry.category === 'video' && !entry.video) return fail(label, 'a video model needs video: {seconds, sizes}');
    if (entry.category === 'video' && ((entry.deployments?.length ?? 1) > 1 || entry.fallbacks.length > 0)) {
      return fail(label, 'a video model has one deployment and no fallbacks: a job is submitted once, and polled where it was submitted');
    }
    const deployments = deploymentsOf(entry, {
      providers,
      label,
      fail,
      checkPricing,
      piiMaskingFeeUsd: file.data.pii_masking_fee_usd,
      textOnlyKinds: TEXT_ONLY_KINDS,
    });
    if (entry.category !== 'text' && !entry.deployments && TEXT_ONLY_KINDS.has(deployments[0]!.provider.kind)) {
      const provider = deployments[0]!.provider;
      return fail(label, `a ${entry.category} model cannot be served by provider "${provider.name}": providers of kind ${provider.kind} offer text models only`);
    }
    // masking is charged on text models only; each carries the fee, its own or the catalog's
    const pricing = entry.category === 'text' ? { ...entry.pricing, pii_masking_fee: entry.pricing.pii_masking_fee ?? file.data.pii_masking_fee_usd } : entry.pricing;
    models.set(entry.id, toModel({ ...entry, pricing }, deployments, defaultCreated));
    return undefined;
  });
  checkFallbacks(models, fail);

  return { providers, models, source, loadedAt: new Date() };
}

function toProvider(name: string, entry: ProviderEntry, env: NodeJS.ProcessEnv): Provider {
  const nativeFormats: Record<Provider['kind'], TextFormat[]> = {
    openai: ['chat', 'responses'],
    anthropic: ['messages'],
    'openai-compatible': ['chat'],
  };
  return {
    name,
    kind: entry.kind,
    baseUrl: entry.base_url.replace(/\/+$/, ''),
    apiKeyEnv: entry.api_key_env,
    apiKey: entry.api_key_env ? env[entry.api_key_env] || undefined : undefined,
    formats: entry.formats ?? nativeFormats[entry.kind],
    timeoutMs: entry.timeout_ms ?? DEFAULT_PROVIDER_TIMEOUT_MS,
  };
}

function toModel(entry: ModelEntry, deployments: readonly Deployment[], defaultCreated: number): CatalogModel {
  const first = deployments[0]!;
  return {
    id: entry.id,
    provider: first.provider,
    upstream: first.upstream,
    deployments,
    fallbacks: entry.fallbacks,
    retry: retryRulesOf(entry.retry, deployments.length),
    category: entry.category,
    maxOutputTokens: entry.max_output_tokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    contextLength: entry.context_length,
    created: entry.created ?? defaultCreated,
    pricing: pricingFromEntry(entry.pricing),
    pricingUsd: entry.pricing,
    capabilities: entry.capabilities,
    dropParams: entry.drop_params,
    video: entry.video && {
      seconds: entry.video.seconds,
      sizes: entry.video.sizes,
      aspectRatios: entry.video.aspect_ratios,
    },
  };
}

/**
 * What is wrong with a model's prices, if anything (the catalog file's and a price set through the admin
 * API are held to the same rules): a price the category needs is missing (a model is never served free),
 * or a text-only price is given to another category.
 */
export function checkPricing(category: ModelCategory, pricing: PricingEntry): string | undefined {
  const options = REQUIRED_PRICES[category];
  if (!options.some((keys) => keys.every((key) => pricing[key] !== undefined))) {
    return `a ${category} model needs pricing.${options.map((keys) => keys.join(' and ')).join(', or ')}`;
  }
  if (category !== 'text' && pricing.pii_masking_fee !== undefined) return 'only a text model has a PII masking fee: masking covers text only';
  if (category !== 'text' && pricing.service_tiers !== undefined) return "only a text model has service tiers: service_tier is a text request's parameter";
  return undefined;
}

function hasId(value: unknown): value is { id: string } {
  return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string';
}

function issuePath(error: z.ZodError): string {
  return error.issues[0]!.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('').replace(/^\./, '') || 'document';
}

function suffix(path: string): string {
  return path === 'document' ? '' : `.${path}`;
}
