import type { IncomingHttpHeaders } from 'node:http';
import type { BodyKind, RequestBodies, StreamReply } from '../endpoints/endpoint-spec.js';

/**
 * The client's side of one request, as the pipeline uses it: its headers, its body and the answer. The
 * HTTP layer implements it over node's request and response (src/http/client-connection.ts); the pipeline
 * never touches either, so each of its steps can run against a connection made in memory.
 */
export interface ClientConnection {
  readonly headers: IncomingHttpHeaders;
  /** Refuses a body whose declared size passes `limit` (`413 request_too_large`), before anything else is done for it. */
  refuseDeclaredOversize(limit: number): void;
  /** The body as `kind` says: a JSON object, or a multipart form with its file spooled to disk; at most `limit` bytes. */
  readBody<Kind extends BodyKind>(kind: Kind, limit: number): Promise<RequestBodies[Kind]>;
  /** Frees what a body held (a spooled upload), whichever way the request ended. */
  releaseBody<Kind extends BodyKind>(kind: Kind, body: RequestBodies[Kind]): Promise<void>;
  setHeader(name: string, value: string): void;
  sendJson(status: number, body: unknown): void;
  /** A text answer (a transcription as plain text, SRT, WebVTT), the content type with its charset. */
  sendText(status: number, contentType: string, text: string): void;
  /** A provider's own answer as it is (spec 7.3.2): status, content type, `Retry-After` and body. */
  sendProviderAnswer(status: number, headers: { readonly contentType?: string; readonly retryAfter?: string }, body: Buffer): void;
  /** An event stream; `firstEventAt` is `performance.now()` when its first event was written (the metrics' time to first byte). */
  openStream(): StreamReply & { readonly firstEventAt: number | undefined };
  /** Calls `listener` once if the client goes away before the whole answer was written; the returned function stops listening. */
  onClientGone(listener: () => void): () => void;
}

/** A request header as the client sent it (its first value). */
export function headerValue(connection: ClientConnection, name: string): string | undefined {
  const value = connection.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
