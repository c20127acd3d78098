import type { CatalogModel } from '../catalog/catalog.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ProviderClient, ProviderDownload } from '../providers/provider-client.js';
import { providerAdapter } from '../providers/provider-registry.js';
import type { VideoJobState } from './video-decider.js';

/**
 * A video job as the provider last described it (the OpenAI videos API, wire-formats.md 5, which the
 * OpenAI-compatible kinds follow): its status, progress, the seconds it made and why it failed.
 */
export interface ProviderVideo {
  readonly id: string;
  readonly status: 'queued' | 'in_progress' | 'completed' | 'failed';
  readonly progress: number;
  readonly seconds: number | undefined;
  readonly error: string | undefined;
}

/**
 * What a call to the provider came to: its video, its refusal of the job (a 4xx other than 408, 409 and
 * 429: the job will not be made, so it fails), or a failure that may pass (a 5xx, a 429, no answer: tried
 * again later).
 */
export type ProviderVideoAnswer =
  | { readonly kind: 'video'; readonly video: ProviderVideo }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'unavailable'; readonly message: string };

/** The provider side of a video job: submit, read, cancel, download. */
export class VideoProvider {
  constructor(private readonly providers: ProviderClient) {}

  /** POST /videos with an idempotency key derived from the job: a second submission of it is the same job upstream. */
  submit(model: CatalogModel, job: VideoJobState): Promise<ProviderVideoAnswer> {
    const path = providerAdapter(model.provider.kind).path('videos');
    if (!path) return Promise.resolve({ kind: 'refused', message: `provider ${model.provider.name} has no video API` });
    const body = {
      model: model.upstream,
      prompt: job.prompt,
      seconds: String(job.seconds),
      size: job.size,
      ...(job.aspectRatio === null ? {} : { aspect_ratio: job.aspectRatio }),
    };
    return this.exchange(model, { path, method: 'POST', body: JSON.stringify(body), headers: { 'idempotency-key': `gateway-${job.videoId}` } });
  }

  read(model: CatalogModel, providerVideoId: string): Promise<ProviderVideoAnswer> {
    const path = providerAdapter(model.provider.kind).videoPath(providerVideoId, 'job');
    if (!path) return Promise.resolve({ kind: 'refused', message: `provider ${model.provider.name} has no video API` });
    return this.exchange(model, { path, method: 'GET' });
  }

  /** Best effort (spec 3: a job with the provider cannot be cancelled by the client; the gateway still asks when it ends one). */
  async cancel(model: CatalogModel, providerVideoId: string): Promise<void> {
    const path = providerAdapter(model.provider.kind).videoPath(providerVideoId, 'job');
    if (path) await this.send(model, { path, method: 'DELETE' });
  }

  download(model: CatalogModel, providerVideoId: string, range: string | undefined, signal: AbortSignal): Promise<ProviderDownload> {
    const path = providerAdapter(model.provider.kind).videoPath(providerVideoId, 'content');
    if (!path) throw new GatewayError('provider_error', `provider ${model.provider.name} has no video API`);
    return this.providers.download({ provider: model.provider, path, signal, ...(range ? { headers: { range } } : {}) });
  }

  private async exchange(model: CatalogModel, call: ProviderRequest): Promise<ProviderVideoAnswer> {
    const sent = await this.send(model, call);
    if ('failed' in sent) return { kind: 'unavailable', message: sent.failed };
    if (sent.status >= 400) {
      const message = providerAdapter(model.provider.kind).describeError(sent.status, sent.body);
      const passing = sent.status >= 500 || sent.status === 408 || sent.status === 409 || sent.status === 429;
      return { kind: passing ? 'unavailable' : 'refused', message };
    }
    const video = parseVideo(sent.body.toString('utf8'));
    return video ? { kind: 'video', video } : { kind: 'unavailable', message: 'the provider answered with a body that is not a video job' };
  }

  private async send(model: CatalogModel, call: ProviderRequest): Promise<{ status: number; body: Buffer } | { failed: string }> {
    try {
      const answer = await this.providers.call({ provider: model.provider, ...call });
      if (answer.type === 'body') return { status: answer.status, body: answer.body };
      answer.events.cancel();
      return { failed: 'the provider answered with an event stream' };
    } catch (error) {
      return { failed: error instanceof Error ? error.message : String(error) };
    }
  }
}

interface ProviderRequest {
  readonly path: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly body?: string;
  readonly headers?: Record<string, string>;
}

const STATUSES: ReadonlySet<string> = new Set(['queued', 'in_progress', 'completed', 'failed']);

function parseVideo(text: string): ProviderVideo | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.id !== 'string' || typeof record.status !== 'string' || !STATUSES.has(record.status)) return undefined;
  const seconds = Number(record.seconds);
  const error = record.error as { message?: unknown; code?: unknown } | null | undefined;
  return {
    id: record.id,
    status: record.status as ProviderVideo['status'],
    progress: typeof record.progress === 'number' ? record.progress : 0,
    seconds: Number.isFinite(seconds) && seconds > 0 ? seconds : undefined,
    error: error ? String(error.message ?? error.code ?? 'the provider failed the job') : undefined,
  };
}
