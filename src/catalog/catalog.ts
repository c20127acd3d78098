import type { Nanodollars } from '../billing/money.js';
import type { ModelCategory } from '../billing/categories.js';
import type { PricingEntry, ProviderKind, TextFormat } from './catalog-schema.js';

/** A provider as the gateway uses it: resolved base URL, key and the text formats it speaks natively. */
export interface Provider {
  readonly name: string;
  readonly kind: ProviderKind;
  readonly baseUrl: string;
  /** Read from the environment variable named in the catalog; undefined when that variable is unset. */
  readonly apiKey: string | undefined;
  readonly apiKeyEnv: string | undefined;
  readonly formats: readonly TextFormat[];
  readonly timeoutMs: number;
}

/**
 * Prices in nanodollars: per million tokens, or per item (image, audio minute, video second). A rate left
 * out falls back as the operator guide says ("Prices": a cache read at the input rate, say), never to free.
 */
export interface Pricing {
  readonly inputPerMillion?: Nanodollars;
  readonly outputPerMillion?: Nanodollars;
  readonly cachedInputPerMillion?: Nanodollars;
  /** Cache writes kept five minutes (every cache write when the model has no hour rate). */
  readonly cacheWritePerMillion?: Nanodollars;
  /** Cache writes kept an hour (Anthropic's 1-hour cache). */
  readonly cacheWrite1hPerMillion?: Nanodollars;
  readonly audioInputPerMillion?: Nanodollars;
  readonly audioOutputPerMillion?: Nanodollars;
  readonly perImage?: Nanodollars;
  readonly perAudioMinute?: Nanodollars;
  readonly perVideoSecond?: Nanodollars;
  /** Per masked request (spec 1.5); set on every text model, the only kind a request can be masked for. */
  readonly piiMaskingFee?: Nanodollars;
  /** Rates of the provider's service tiers (`flex`, `priority`, …) that differ from these, by tier. */
  readonly serviceTiers?: Readonly<Record<string, Omit<Pricing, 'serviceTiers' | 'piiMaskingFee'>>>;
}

export interface VideoOptions {
  readonly seconds: readonly number[];
  readonly sizes: readonly string[];
  readonly aspectRatios: readonly string[];
}

/**
 * One place a model is served: its provider, the name sent there, its share of the traffic and its price.
 * A model written without `deployments:` has one, at the provider its id names.
 */
export interface Deployment {
  /** `<model id>#<its id: or its index>`: the name in metrics, logs and settle events. */
  readonly id: string;
  readonly provider: Provider;
  readonly upstream: string;
  readonly weight: number;
  /**
   * The price book's entry the deployment is charged at: its own id when it has its own `pricing`
   * (recorded as that id's price versions), the model's id otherwise.
   */
  readonly priceKey: string;
  /** Its own rates, as written, when it has them (recorded in the price book under `priceKey`). */
  readonly pricingUsd: PricingEntry | undefined;
}

/** How a model's calls are retried, and when a deployment is left to cool down (catalog `retry:`). */
export interface RetryRules {
  readonly maxAttempts: number;
  readonly budgetMs: number;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  readonly cooldownAfterFailures: number;
  readonly cooldownMs: number;
}

export interface CatalogModel {
  /** `<provider>/<model>`, the name clients use. */
  readonly id: string;
  /** The provider of its first deployment (of the one a request is sent to, in an attempt's view). */
  readonly provider: Provider;
  /** The model name sent to the provider (of the first deployment, or the attempt's). */
  readonly upstream: string;
  /** Where it is served: at least one. */
  readonly deployments: readonly Deployment[];
  /** Models tried in order when all its deployments failed (same category, checked at load). */
  readonly fallbacks: readonly string[];
  readonly retry: RetryRules;
  readonly category: ModelCategory;
  readonly maxOutputTokens: number;
  readonly contextLength: number | undefined;
  readonly created: number;
  readonly pricing: Pricing;
  /** The catalog's own USD strings, shown as they were written by `GET /v1/models`. */
  readonly pricingUsd: PricingEntry;
  readonly capabilities: readonly string[];
  /** Request parameters this model does not support; dropped without an error (spec 1.6). */
  readonly dropParams: readonly string[];
  readonly video: VideoOptions | undefined;
}

export interface Catalog {
  readonly providers: ReadonlyMap<string, Provider>;
  readonly models: ReadonlyMap<string, CatalogModel>;
  readonly source: string;
  readonly loadedAt: Date;
}

/** The response ceiling used for reserves when a model declares none (spec 8). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 128_000;
export const DEFAULT_PROVIDER_TIMEOUT_MS = 600_000;
