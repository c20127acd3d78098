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

/** Prices in nanodollars: per million tokens, or per item (image, audio minute, video second). */
export interface Pricing {
  readonly inputPerMillion?: Nanodollars;
  readonly outputPerMillion?: Nanodollars;
  readonly cachedInputPerMillion?: Nanodollars;
  readonly cacheWritePerMillion?: Nanodollars;
  readonly perImage?: Nanodollars;
  readonly perAudioMinute?: Nanodollars;
  readonly perVideoSecond?: Nanodollars;
  /** Per masked request (spec 1.5); set on every text model, the only kind a request can be masked for. */
  readonly piiMaskingFee?: Nanodollars;
}

export interface VideoOptions {
  readonly seconds: readonly number[];
  readonly sizes: readonly string[];
  readonly aspectRatios: readonly string[];
}

export interface CatalogModel {
  /** `<provider>/<model>`, the name clients use. */
  readonly id: string;
  readonly provider: Provider;
  /** The model name sent to the provider. */
  readonly upstream: string;
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
