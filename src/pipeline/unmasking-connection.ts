import type { StreamReply } from '../endpoints/endpoint-spec.js';
import type { MaskedFormat } from '../pii/masked-format.js';
import type { Placeholders } from '../pii/placeholders.js';
import { streamUnmasker } from '../pii/streams/stream-unmasker.js';
import { unmaskJson, unmaskText } from '../pii/unmask-text.js';
import type { ClientConnection } from './client-connection.js';

/**
 * The client's connection as the steps after masking see it: every answer is unmasked on its way out
 * (a JSON answer whole, a stream event by event in the client's format), so that no step needs to know the
 * request was masked. A provider's own error goes back as the provider wrote it (spec 7.3.2), placeholders
 * and all: it is the provider's text about the masked request.
 */
export function unmaskingConnection(connection: ClientConnection, format: MaskedFormat, placeholders: Placeholders): ClientConnection {
  return {
    get headers() {
      return connection.headers;
    },
    refuseDeclaredOversize: (limit) => connection.refuseDeclaredOversize(limit),
    readBody: (kind, limit) => connection.readBody(kind, limit),
    releaseBody: (kind, body) => connection.releaseBody(kind, body),
    setHeader: (name, value) => connection.setHeader(name, value),
    sendJson: (status, body) => connection.sendJson(status, unmaskJson(body, placeholders)),
    sendText: (status, contentType, text) => connection.sendText(status, contentType, unmaskText(text, placeholders)),
    sendProviderAnswer: (status, headers, body) => connection.sendProviderAnswer(status, headers, body),
    openStream: () => unmaskingStream(connection.openStream(), format, placeholders),
    onClientGone: (listener) => connection.onClientGone(listener),
  };
}

function unmaskingStream(reply: StreamReply & { readonly firstEventAt: number | undefined }, format: MaskedFormat, placeholders: Placeholders) {
  const unmasker = streamUnmasker(format, placeholders);
  return {
    get firstEventAt() {
      return reply.firstEventAt;
    },
    start: () => reply.start(),
    write: (events: Parameters<StreamReply['write']>[0]) => reply.write(events.flatMap((event) => unmasker.push(event))),
    drain: () => reply.drain(),
    end() {
      reply.write(unmasker.end());
      reply.end();
    },
  };
}
