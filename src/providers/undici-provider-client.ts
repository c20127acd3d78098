import { Pool } from 'undici';
import type { Provider } from '../catalog/catalog.js';
import { GatewayError } from '../errors/gateway-error.js';
import { ProviderCallHandler } from './provider-call-handler.js';
import type { ProviderCall, ProviderClient, ProviderDownload, ProviderResponse } from './provider-client.js';
import { gatewayErrorForTransportFailure } from './transport-failure.js';
import { providerRegistry } from './provider-registry.js';

export interface UndiciProviderClientOptions {
  /** Sockets per provider origin. Streams hold theirs for the whole answer, so this bounds concurrent streams. */
  readonly connectionsPerOrigin?: number;
  readonly connectTimeoutMs?: number;
  /** Idle time before a pooled socket closes; a server's `Keep-Alive: timeout=` hint lowers it (undici). */
  readonly keepAliveTimeoutMs?: number;
}

type HeaderPairs = ReadonlyArray<readonly [string, string]>;

interface ResolvedProvider {
  readonly pool: Pool;
  readonly pathPrefix: string;
  /** The kind's headers as pairs, computed once per provider rather than per call. */
  readonly credentials: HeaderPairs;
  readonly defaults: HeaderPairs;
}

// Never forwarded from the caller: credentials are the provider's own, framing is undici's.
const CALLER_HEADERS_DROPPED: ReadonlySet<string> = new Set([
  'authorization',
  'x-api-key',
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

/**
 * The `ProviderClient` on undici: one keep-alive `Pool` per provider origin (shared by every provider on
 * that origin), one request per socket at a time (`pipelining: 1`: a slow LLM answer must not hold up the
 * next request queued behind it). The provider's `timeoutMs` bounds the whole call, headers and body.
 */
export class UndiciProviderClient implements ProviderClient {
  private readonly pools = new Map<string, Pool>();
  // keyed by the catalog's record: a catalog reload brings new records and the old entries are collected
  private readonly resolved = new WeakMap<Provider, ResolvedProvider>();
  private closing: Promise<void> | undefined;
  private readonly connections: number;
  private readonly connectTimeoutMs: number;
  private readonly keepAliveTimeoutMs: number;

  constructor(options: UndiciProviderClientOptions = {}) {
    this.connections = options.connectionsPerOrigin ?? 256;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.keepAliveTimeoutMs = options.keepAliveTimeoutMs ?? 10_000;
  }

  async call(call: ProviderCall): Promise<ProviderResponse> {
    if (this.closing) throw new GatewayError('service_unavailable', 'the gateway is shutting down', { retryAfterSeconds: 1 });
    if (call.signal?.aborted) throw call.signal.reason;
    const target = this.resolve(call.provider);
    const handler = new ProviderCallHandler(call);
    target.pool.dispatch(
      {
        path: target.pathPrefix + call.path,
        method: call.method ?? (call.body === undefined ? 'GET' : 'POST'),
        headers: requestHeaders(call, target),
        body: call.body ?? null,
        // our own deadline covers the whole call; these are undici's per-phase guards behind it
        headersTimeout: call.provider.timeoutMs,
        bodyTimeout: call.provider.timeoutMs,
      },
      handler,
    );
    return handler.response;
  }

  async download(call: ProviderCall): Promise<ProviderDownload> {
    if (this.closing) throw new GatewayError('service_unavailable', 'the gateway is shutting down', { retryAfterSeconds: 1 });
    const target = this.resolve(call.provider);
    try {
      // undici's request API: a Readable body that follows the consumer's pace, with its own backpressure
      const answer = await target.pool.request({
        path: target.pathPrefix + call.path,
        method: 'GET',
        headers: requestHeaders(call, target),
        signal: call.signal ?? null,
        headersTimeout: call.provider.timeoutMs,
        bodyTimeout: call.provider.timeoutMs,
      });
      const header = (name: string) => {
        const value = answer.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      return {
        status: answer.statusCode,
        headers: {
          contentType: header('content-type'),
          retryAfter: header('retry-after'),
          requestId: header('x-request-id') ?? header('request-id'),
          contentLength: header('content-length'),
          contentRange: header('content-range'),
        },
        body: answer.body,
      };
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason;
      throw gatewayErrorForTransportFailure(error, call.provider.name, 'answer');
    }
  }

  close(): Promise<void> {
    this.closing ??= Promise.all([...this.pools.values()].map((pool) => pool.close())).then(() => undefined);
    return this.closing;
  }

  private resolve(provider: Provider): ResolvedProvider {
    const known = this.resolved.get(provider);
    if (known) return known;
    const url = new URL(provider.baseUrl);
    let pool = this.pools.get(url.origin);
    if (!pool) {
      pool = new Pool(url.origin, {
        connections: this.connections,
        pipelining: 1,
        keepAliveTimeout: this.keepAliveTimeoutMs,
        keepAliveMaxTimeout: 10 * this.keepAliveTimeoutMs,
        connect: { timeout: this.connectTimeoutMs },
      });
      this.pools.set(url.origin, pool);
    }
    const headers = providerRegistry[provider.kind].headers(provider.apiKey);
    const resolved: ResolvedProvider = {
      pool,
      pathPrefix: url.pathname.replace(/\/+$/, ''),
      credentials: Object.entries(headers.credentials),
      defaults: Object.entries(headers.defaults),
    };
    this.resolved.set(provider, resolved);
    return resolved;
  }
}

function requestHeaders(call: ProviderCall, target: ResolvedProvider): Record<string, string> {
  const headers: Record<string, string> = {};
  const extra = call.headers;
  if (extra) {
    for (const name in extra) {
      const lower = name.toLowerCase();
      if (!CALLER_HEADERS_DROPPED.has(lower)) headers[lower] = extra[name]!;
    }
  }
  for (const [name, value] of target.defaults) headers[name] ??= value;
  for (const [name, value] of target.credentials) headers[name] = value;
  if (call.body !== undefined) headers['content-type'] = call.contentType ?? headers['content-type'] ?? 'application/json';
  if (call.contentLength !== undefined) headers['content-length'] = String(call.contentLength);
  return headers;
}
