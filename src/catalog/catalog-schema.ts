import { z } from 'zod';
import { MODEL_CATEGORIES, type ModelCategory } from '../billing/categories.js';
import { isUsdAmount } from '../billing/money.js';

/** The YAML shape of the catalog file (docs/operator-guide.md, "Catalog"). Prices are USD decimal strings. */
export const PROVIDER_KINDS = ['openai', 'anthropic', 'openai-compatible'] as const;
export const TEXT_FORMATS = ['chat', 'messages', 'responses'] as const;

export type ProviderKind = (typeof PROVIDER_KINDS)[number];
export type TextFormat = (typeof TEXT_FORMATS)[number];

const usd = z.string().refine(isUsdAmount, 'must be a USD decimal string such as "0.15" (at most 9 decimals)');

export const providerEntrySchema = z.strictObject({
  kind: z.enum(PROVIDER_KINDS),
  base_url: z.url(),
  api_key_env: z.string().min(1).optional(),
  formats: z.array(z.enum(TEXT_FORMATS)).min(1).optional(),
  timeout_ms: z.number().int().positive().optional(),
});

/** One set of rates; a rate left out falls back as the operator guide says ("Prices"), never to free. */
const rateFields = {
  input_per_mtok: usd.optional(),
  output_per_mtok: usd.optional(),
  cached_input_per_mtok: usd.optional(),
  /** Cache writes kept five minutes (every cache write when `cache_write_1h_per_mtok` is absent). */
  cache_write_per_mtok: usd.optional(),
  /** Cache writes kept an hour (Anthropic's `ephemeral_1h_input_tokens`). */
  cache_write_1h_per_mtok: usd.optional(),
  audio_input_per_mtok: usd.optional(),
  audio_output_per_mtok: usd.optional(),
  per_image: usd.optional(),
  per_audio_minute: usd.optional(),
  per_video_second: usd.optional(),
};

/** A service tier's name as providers spell it (`flex`, `priority`, `scale`…); `auto` and `default` are the standard rates. */
export const SERVICE_TIER_NAME = /^[a-z][a-z0-9_-]*$/;
const STANDARD_TIERS = new Set(['auto', 'default']);

export const tierRatesSchema = z.strictObject(rateFields);

export const pricingSchema = z.strictObject({
  ...rateFields,
  /** PII masking's fee per masked request (text models); filled from the catalog's `pii_masking_fee_usd` when not set. */
  pii_masking_fee: usd.optional(),
  /**
   * The rates of a provider's service tiers, by tier name: a request with `service_tier` is priced at its
   * tier's rates, each rate the tier leaves out at the standard one. A tier not listed is refused.
   */
  service_tiers: z
    .record(z.string(), tierRatesSchema)
    .superRefine((tiers, context) => {
      for (const name of Object.keys(tiers)) {
        if (STANDARD_TIERS.has(name)) context.addIssue({ code: 'custom', path: [name], message: 'auto and default are the standard rates and are not listed' });
        else if (!SERVICE_TIER_NAME.test(name)) context.addIssue({ code: 'custom', path: [name], message: 'a tier name is lowercase letters, digits, _ and -' });
      }
    })
    .optional(),
});

/** A deployment's own name (`id:`), used in its deployment id `<model id>#<name>`. */
const DEPLOYMENT_NAME = /^[a-z0-9][a-z0-9_.-]*$/i;

/**
 * One place a model is served (docs/operator-guide.md, "Deployments and fallbacks"): a provider of the
 * catalog, the model name it is sent there, its share of the traffic, and its own rates where it costs
 * differently from the model's.
 */
export const deploymentEntrySchema = z.strictObject({
  id: z.string().regex(DEPLOYMENT_NAME, 'a deployment id is letters, digits, . _ -').optional(),
  provider: z.string().min(1),
  upstream: z.string().min(1).optional(),
  weight: z.number().refine((weight) => weight > 0 && Number.isFinite(weight), 'a weight must be a number above zero').default(1),
  pricing: pricingSchema.optional(),
});

/** How a model's calls are retried and when one of its deployments is left to cool down. */
export const retryEntrySchema = z.strictObject({
  /** Attempts on this model's deployments, the first included; default one per deployment (a model written as before is not retried). */
  max_attempts: z.number().int().min(1).max(10).optional(),
  /** No new attempt on this model starts later than this after its first one. */
  budget_ms: z.number().int().positive().default(30_000),
  initial_backoff_ms: z.number().int().nonnegative().default(200),
  max_backoff_ms: z.number().int().nonnegative().default(5_000),
  /** Consecutive failures of a deployment that put it in cooldown. */
  cooldown_after_failures: z.number().int().positive().default(3),
  cooldown_ms: z.number().int().positive().default(30_000),
});

export const modelEntrySchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9_.-]*\/[^\s]+$/i, 'must be <provider>/<model>'),
  upstream: z.string().min(1).optional(),
  category: z.enum(MODEL_CATEGORIES),
  max_output_tokens: z.number().int().positive().optional(),
  context_length: z.number().int().positive().optional(),
  created: z.number().int().nonnegative().optional(),
  pricing: pricingSchema,
  capabilities: z.array(z.string().min(1)).default([]),
  /** Where the model is served; absent: at the provider its id names, under `upstream`. */
  deployments: z.array(deploymentEntrySchema).min(1, 'deployments lists no deployment').optional(),
  /** Models tried, in order, when every deployment of this one has failed. */
  fallbacks: z.array(z.string().min(1)).default([]),
  retry: retryEntrySchema.default(retryEntrySchema.parse({})),
  drop_params: z.array(z.string().min(1)).default([]),
  video: z
    .strictObject({
      seconds: z.array(z.number().int().positive()).min(1),
      sizes: z.array(z.string().regex(/^\d+x\d+$/)).min(1),
      aspect_ratios: z.array(z.string().regex(/^\d+:\d+$/)).default([]),
    })
    .optional(),
});

/** What a masked request costs on top of its tokens when the catalog says nothing (docs/operator-guide.md, "Catalog"). */
export const DEFAULT_PII_MASKING_FEE_USD = '0.001';

export const catalogFileSchema = z.strictObject({
  /** The PII masking fee of every text model that does not set its own `pricing.pii_masking_fee`. */
  pii_masking_fee_usd: usd.default(DEFAULT_PII_MASKING_FEE_USD),
  providers: z.record(z.string().regex(/^[a-z0-9][a-z0-9_.-]*$/i, 'provider names are letters, digits, . _ -'), providerEntrySchema),
  models: z.array(z.unknown()).min(1, 'the catalog lists no model'),
});

export type ProviderEntry = z.infer<typeof providerEntrySchema>;
export type ModelEntry = z.infer<typeof modelEntrySchema>;
export type DeploymentEntry = z.infer<typeof deploymentEntrySchema>;
export type RetryEntry = z.infer<typeof retryEntrySchema>;
export type PricingEntry = z.infer<typeof pricingSchema>;
export type TierRatesEntry = z.infer<typeof tierRatesSchema>;

/** Which prices a category must have (a model with a missing price is never served free). */
export const REQUIRED_PRICES: Record<ModelCategory, ReadonlyArray<ReadonlyArray<keyof PricingEntry>>> = {
  text: [['input_per_mtok', 'output_per_mtok']],
  image: [['per_image']],
  embeddings: [['input_per_mtok']],
  // speech is priced per minute of audio, or per token like a text model
  speech: [['per_audio_minute'], ['input_per_mtok', 'output_per_mtok']],
  video: [['per_video_second']],
};
