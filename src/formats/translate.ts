import type { JsonObject } from './json-value.js';
import type { CanonicalRequest } from './canonical/canonical-request.js';
import type { CanonicalResponse } from './canonical/canonical-response.js';
import type { CanonicalStreamEvent } from './canonical/canonical-stream-event.js';
import { dropUnsupportedParams } from './canonical/drop-unsupported-params.js';
import type { FormatName } from './canonical/format-name.js';
import type { RenderedRequest, RequestRenderOptions } from './canonical/rendered-request.js';
import type { ClientIdentity, ClientStream, EncoderOptions } from './canonical/stream-codec.js';
import { StreamTranslator } from './canonical/stream-translator.js';
import { formatCodecs } from './format-codecs.js';
import { createPassThroughStream } from './pass-through.js';

export interface TranslateRequestOptions extends RequestRenderOptions {
  /** The model's `drop_params` from the catalog. */
  readonly dropParams?: readonly string[];
}

/** A parsed client request → the provider's body in its format, with what was dropped on the way. */
export function translateRequest(request: CanonicalRequest, target: FormatName, options: TranslateRequestOptions): RenderedRequest {
  const { value, dropped } = dropUnsupportedParams(request, options.dropParams ?? []);
  const rendered = formatCodecs[target].renderRequest(value, options);
  return { body: rendered.body, dropped: [...new Set([...dropped, ...rendered.dropped])] };
}

/** A provider's non-streaming answer → the client's body (the canonical response is returned for settlement). */
export function translateResponse(body: unknown, from: FormatName, to: FormatName, identity: ClientIdentity): { body: JsonObject; response: CanonicalResponse } {
  const response = formatCodecs[from].parseResponse(body);
  return { body: formatCodecs[to].renderResponse(response, identity), response };
}

/**
 * The client stream for one request: pass-through when the provider speaks the client's format, else a
 * decoder → encoder translation. `observe` sees the canonical events of a translated stream.
 */
export function createClientStream(
  provider: FormatName,
  client: FormatName,
  options: EncoderOptions,
  observe?: (event: CanonicalStreamEvent) => void,
): ClientStream {
  if (provider === client && !observe) return createPassThroughStream(client, options);
  return new StreamTranslator(formatCodecs[provider].createDecoder(), formatCodecs[client].createEncoder(options), observe);
}
