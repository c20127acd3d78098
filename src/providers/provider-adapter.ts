import type { ProviderKind } from '../catalog/catalog-schema.js';
import type { ProviderApi, VideoResourcePart } from './provider-api.js';
import type { SideApiUsageExtractor } from './side-api-usage.js';

/** Headers a provider kind puts on every request. */
export interface ProviderHeaders {
  /** Always sent, replacing anything the caller passed under these names. */
  readonly credentials: Readonly<Record<string, string>>;
  /** Sent unless the caller passed its own value (e.g. `anthropic-version`). */
  readonly defaults: Readonly<Record<string, string>>;
}

/**
 * What differs between provider kinds below the format layer: where each API lives, how to
 * authenticate, how to read the provider's errors and side-API usage. No format translation here.
 */
export interface ProviderAdapter {
  readonly kind: ProviderKind;
  /** The path of an API, relative to the provider's base URL; `undefined` when this kind does not offer it. */
  path(api: ProviderApi): string | undefined;
  /** `GET` (status) / `DELETE` path of a video job, or of its file. */
  videoPath(videoId: string, part: VideoResourcePart): string | undefined;
  headers(apiKey: string | undefined): ProviderHeaders;
  /** A short line for the logs; the body itself goes back to the client unchanged. */
  describeError(status: number, body: Buffer): string;
  readonly sideUsage: SideApiUsageExtractor;
}
