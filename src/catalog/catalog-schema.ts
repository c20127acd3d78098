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

export const pricingSchema = z.strictObject({
  input_per_mtok: usd.optional(),
  output_per_mtok: usd.optional(),
  cached_input_per_mtok: usd.optional(),
  cache_write_per_mtok: usd.optional(),
  per_image: usd.optional(),
  per_audio_minute: usd.optional(),
  per_video_second: usd.optional(),
  /** PII masking's fee per masked request (text models); filled from the catalog's `pii_masking_fee_usd` when not set. */
  pii_masking_fee: usd.optional(),
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
export type PricingEntry = z.infer<typeof pricingSchema>;

/** Which prices a category must have (a model with a missing price is never served free). */
export const REQUIRED_PRICES: Record<ModelCategory, ReadonlyArray<ReadonlyArray<keyof PricingEntry>>> = {
  text: [['input_per_mtok', 'output_per_mtok']],
  image: [['per_image']],
  embeddings: [['input_per_mtok']],
  // speech is priced per minute of audio, or per token like a text model
  speech: [['per_audio_minute'], ['input_per_mtok', 'output_per_mtok']],
  video: [['per_video_second']],
};
