/**
 * The catalog's records (`/models`, `/models/{id}/prices`, `/deployments`): a model's rates, its price
 * versions and its deployments' health, part of the admin API's records: src/admin-records.ts re-exports
 * them, and the same rules hold (types only, importing nothing).
 */

/** A model's prices as the catalog writes them: USD decimal strings, per million tokens or per item. */
export interface ModelRatesRecord {
  input_per_mtok?: string;
  output_per_mtok?: string;
  cached_input_per_mtok?: string;
  cache_write_per_mtok?: string;
  cache_write_1h_per_mtok?: string;
  audio_input_per_mtok?: string;
  audio_output_per_mtok?: string;
  per_image?: string;
  per_audio_minute?: string;
  per_video_second?: string;
}

/** A model's rates, USD strings as the catalog writes them (docs/operator-guide.md, "Prices"). */
export interface ModelPricingRecord extends ModelRatesRecord {
  pii_masking_fee?: string;
  /** The rates of the provider's service tiers that differ from the standard ones. */
  service_tiers?: Record<string, ModelRatesRecord>;
}

/** One price version of a model (`GET /admin/v1/models/{id}/prices`). */
export interface PriceVersionRecord {
  object: 'model.price';
  model: string;
  version: number;
  effective_at: string;
  /** `catalog`: recorded from the catalog file; `admin`: set through the admin API. */
  source: 'catalog' | 'admin';
  /** In force now; a version whose time has not come is `scheduled`, one replaced `superseded`. */
  status: 'in_force' | 'scheduled' | 'superseded';
  pricing: ModelPricingRecord;
}

/** A catalog model in `GET /models`: the entry `GET /v1/models` lists for a key, every model here. */
export interface ModelRecord {
  id: string;
  object: 'model';
  created: number;
  /** The provider's name in the catalog. */
  owned_by: string;
  category: string;
  context_length: number | null;
  /** The output ceiling a reserve assumes when a request sets no cap (text models; null for others). */
  max_output_tokens: number | null;
  /** The price in force: its rates, its version (src/prices) and since when; null for a model without one. */
  pricing: ModelPricingRecord;
  pricing_version: number | null;
  pricing_effective_at: string | null;
  capabilities: readonly string[];
  video?: { seconds: readonly number[]; sizes: readonly string[]; aspect_ratios: readonly string[] };
}

/**
 * A deployment of the catalog and its health as the instance that answers saw it (`GET /admin/v1/deployments`):
 * the figures are this instance's since it started (cooldowns are kept per instance).
 */
export interface DeploymentRecord {
  /** `<model id>#<id or index>`. */
  id: string;
  model: string;
  provider: string;
  upstream: string;
  weight: number;
  /** The price book entry it is charged at: its own id when it has its own rates, else the model's. */
  priced_as: string;
  answered: number;
  failed: number;
  retries: number;
  fallbacks: number;
  cooldowns: number;
  cooling_down: boolean;
  /** When its cooldown ends (ISO), while it cools down. */
  cooling_until: string | null;
}
