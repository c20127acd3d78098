import type { IncomingHttpHeaders } from 'node:http';
import type { BodyKind, RequestBodies } from '../../src/endpoints/endpoint-spec.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import type { JsonObject } from '../../src/formats/json-value.js';
import type { SseEvent } from '../../src/formats/sse-event.js';
import type { ClientConnection } from '../../src/pipeline/client-connection.js';

/** What a step sent the client through a `MemoryConnection`. */
export type SentAnswer =
  | { readonly kind: 'json'; readonly status: number; readonly body: unknown }
  | { readonly kind: 'text'; readonly status: number; readonly contentType: string; readonly text: string }
  | { readonly kind: 'provider'; readonly status: number; readonly contentType?: string; readonly retryAfter?: string; readonly body: string }
  | { readonly kind: 'stream'; readonly events: SseEvent[]; ended: boolean };

/**
 * A client connection held in memory, for the pipeline's steps tested alone: it serves the headers and the
 * body given, and records what the step did (headers set, answers sent, bodies read and released, the
 * size it was asked to check). `goAway()` plays a client that disconnects.
 */
export class MemoryConnection implements ClientConnection {
  readonly headers: IncomingHttpHeaders;
  readonly headersSet = new Map<string, string>();
  readonly sent: SentAnswer[] = [];
  readonly released: unknown[] = [];
  bodyReads = 0;
  checkedLimit: number | undefined;
  private readonly goneListeners = new Set<() => void>();

  constructor(
    headers: Record<string, string> = {},
    private readonly body: JsonObject | RequestBodies['multipart'] = {},
    /** The size the client declares (Content-Length), checked against a limit. */
    private readonly declaredBytes = 0,
  ) {
    this.headers = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  }

  refuseDeclaredOversize(limit: number): void {
    this.checkedLimit = limit;
    if (this.declaredBytes > limit) throw new GatewayError('request_too_large');
  }

  async readBody<Kind extends BodyKind>(_kind: Kind, _limit: number): Promise<RequestBodies[Kind]> {
    this.bodyReads++;
    return this.body as RequestBodies[Kind];
  }

  async releaseBody<Kind extends BodyKind>(_kind: Kind, body: RequestBodies[Kind]): Promise<void> {
    this.released.push(body);
  }

  setHeader(name: string, value: string): void {
    this.headersSet.set(name, value);
  }

  sendJson(status: number, body: unknown): void {
    this.sent.push({ kind: 'json', status, body });
  }

  sendText(status: number, contentType: string, text: string): void {
    this.sent.push({ kind: 'text', status, contentType, text });
  }

  sendProviderAnswer(status: number, headers: { contentType?: string; retryAfter?: string }, body: Buffer): void {
    this.sent.push({ kind: 'provider', status, contentType: headers.contentType, retryAfter: headers.retryAfter, body: body.toString('utf8') });
  }

  openStream() {
    const answer = { kind: 'stream' as const, events: [] as SseEvent[], ended: false };
    this.sent.push(answer);
    let firstEventAt: number | undefined;
    return {
      get firstEventAt() {
        return firstEventAt;
      },
      start: () => undefined,
      write: (events: readonly SseEvent[]) => {
        if (firstEventAt === undefined && events.length > 0) firstEventAt = performance.now();
        answer.events.push(...events);
        return true;
      },
      drain: async () => undefined,
      end: () => {
        answer.ended = true;
      },
    };
  }

  onClientGone(listener: () => void): () => void {
    this.goneListeners.add(listener);
    return () => this.goneListeners.delete(listener);
  }

  /** The client disconnects. */
  goAway(): void {
    for (const listener of this.goneListeners) listener();
  }

  /** Whether anything still listens for the client going away (a step must stop when it is done). */
  get watched(): boolean {
    return this.goneListeners.size > 0;
  }
}
