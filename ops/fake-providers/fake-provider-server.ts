import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatSseEvent, type SseEvent } from '../../src/formats/sse-event.js';
import { applyTransportFault, faultNamedIn } from './provider-faults.js';
import type { ScriptedAnswer, ScriptedError } from './scripted-answer.js';

/** One request as the fake received it, for assertions on what the gateway sent. */
export interface RecordedRequest {
  readonly method: string;
  /** Without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  /** Parsed JSON; multipart fields (files as `{filename, type, size}`); `undefined` for no or unparsable body. */
  readonly body: unknown;
  /** Which connection carried it (1, 2, …): keep-alive reuse shows as repeated ids. */
  readonly connection: number;
  /** `finished` when the whole answer was written, `closed` when the connection closed first (client abort). */
  readonly outcome: Promise<'finished' | 'closed'>;
}

export interface MultipartFile {
  readonly filename: string;
  readonly type: string;
  readonly size: number;
  /** Hex SHA-256 of the bytes, to check an upload arrived unchanged. */
  readonly sha256: string;
}

export interface FakeProviderOptions {
  /** Reject requests without this key with the provider's 401. */
  readonly apiKey?: string;
  /**
   * Benchmarks: keep no request records and answer unscripted requests from a per-model cache of the
   * serialised default answer (no object building, no JSON.stringify per request).
   */
  readonly record?: boolean;
}

/** What a route handler gets: the request, its parsed body, and the scripted answer it took (if any). */
export interface FakeExchange {
  readonly request: RecordedRequest;
  readonly response: ServerResponse;
  /** Aborted when the client's connection closes: handlers stop writing. */
  readonly closed: AbortSignal;
}

/** Stream controls of a scripted answer, shared by every format's stream writer. */
export type StreamControls = Pick<ScriptedAnswer, 'eventDelayMs' | 'failAfterEvents' | 'errorEventAfter' | 'holdLastEventUntil' | 'pauseAfterEvents' | 'truncateAfterEvents'>;

/**
 * The HTTP side every fake shares: a real node:http server on 127.0.0.1, connection counting, request
 * recording, the FIFO of scripted answers, and writers for JSON, errors and SSE with delays and failures.
 */
export abstract class FakeProviderServer {
  readonly requests: RecordedRequest[] = [];
  /** Connections accepted since start or the last `reset()`. */
  connectionsOpened = 0;
  /** Requests being answered right now: from their arrival to the end (or the client's close) of their answer. */
  inFlight = 0;
  /** The most requests answered at once since start or the last `reset()`: what a concurrency cap let through. */
  maxInFlight = 0;
  protected readonly options: FakeProviderOptions;
  private readonly server: Server;
  private readonly sockets = new Map<Socket, number>();
  private readonly queue: ScriptedAnswer[] = [];
  private readonly recordRequests: boolean;
  private port = 0;
  private connectionIds = 0;

  protected constructor(options: FakeProviderOptions = {}) {
    this.options = options;
    this.recordRequests = options.record ?? true;
    this.server = createServer((request, response) => {
      this.receive(request, response).catch((error: unknown) => {
        if (!response.headersSent) this.writeJson(response, 500, { error: { message: String(error), type: 'server_error', param: null, code: null } });
        else response.destroy();
      });
    });
    // longer than the transport's pooled idle time, so the client, not the server, retires idle sockets
    this.server.keepAliveTimeout = 30_000;
    this.server.on('connection', (socket: Socket) => {
      this.connectionsOpened += 1;
      this.connectionIds += 1;
      this.sockets.set(socket, this.connectionIds);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** `http://127.0.0.1:<port>`. */
  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The base URL a client is configured with (OpenAI: with `/v1`; Anthropic: without). */
  abstract get url(): string;

  /** Connections open right now. */
  get openConnections(): number {
    return this.sockets.size;
  }

  get lastRequest(): RecordedRequest | undefined {
    return this.requests.at(-1);
  }

  /** Queues answers for the next requests, first in first out. */
  enqueue(...answers: ScriptedAnswer[]): this {
    this.queue.push(...answers);
    return this;
  }

  /** Scripted answers not yet taken. */
  get pending(): number {
    return this.queue.length;
  }

  /** Drops scripts, records and counters (between tests). */
  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
    this.connectionsOpened = 0;
    this.maxInFlight = this.inFlight;
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('the fake provider has no TCP address');
    this.port = address.port;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  protected abstract route(exchange: FakeExchange): Promise<void>;

  /** The error body this provider sends for a status when a script gives none. */
  protected abstract errorBody(status: number, message: string): unknown;

  /**
   * The answer for a model request: the fault its body names (`fake-fault:<name>`, provider-faults.ts),
   * else the first queued answer meant for its path, else the default. A transport fault that bends the
   * writes (trickle, a body cut halfway) is set on the response here.
   */
  protected answerFor(exchange: FakeExchange): ScriptedAnswer {
    const answer = faultNamedIn(exchange.request.rawBody) ?? this.takeAnswer(exchange.request.path) ?? {};
    applyTransportFault(exchange.response, answer, exchange.closed);
    return answer;
  }

  /** Takes the first queued answer meant for this path (or for any path). */
  protected takeAnswer(path: string): ScriptedAnswer | undefined {
    const index = this.queue.findIndex((answer) => answer.path === undefined || answer.path === path);
    if (index === -1) return undefined;
    return this.queue.splice(index, 1)[0];
  }

  protected get fastPath(): boolean {
    return !this.recordRequests && this.queue.length === 0;
  }

  protected writeJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.writeBytes(response, status, 'application/json', Buffer.from(JSON.stringify(body)), headers);
  }

  protected writeBytes(response: ServerResponse, status: number, contentType: string, body: Buffer, headers: Record<string, string> = {}): void {
    response.writeHead(status, { 'content-type': contentType, 'content-length': String(body.length), ...headers });
    response.end(body);
  }

  protected writeError(response: ServerResponse, error: ScriptedError, extraHeaders: Record<string, string> = {}): void {
    const headers: Record<string, string> = { ...extraHeaders, ...error.headers };
    if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
    const body = error.body ?? this.errorBody(error.status, `scripted error ${error.status}`);
    if (typeof body === 'string') this.writeBytes(response, error.status, 'text/plain; charset=utf-8', Buffer.from(body), headers);
    else this.writeJson(response, error.status, body, headers);
  }

  /** Writes events one by one, honouring the script's delays, hold, mid-stream failure and error event. */
  protected async writeSse(exchange: FakeExchange, events: readonly SseEvent[], controls: StreamControls, errorEvent: SseEvent, headers: Record<string, string> = {}): Promise<void> {
    const { response, closed } = exchange;
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
    response.flushHeaders();
    let lastWrite: Promise<void> = Promise.resolve();
    for (let index = 0; index < events.length; index++) {
      if (closed.aborted) return;
      if (controls.failAfterEvents === index) {
        // flushed first, so the client really has the events before the connection dies
        await lastWrite;
        response.socket?.destroy();
        return;
      }
      if (controls.errorEventAfter === index) {
        response.end(formatSseEvent(errorEvent));
        return;
      }
      if (controls.truncateAfterEvents === index) {
        response.end();
        return;
      }
      if (index === events.length - 1 && controls.holdLastEventUntil) await controls.holdLastEventUntil;
      if (index === controls.pauseAfterEvents?.count) await controls.pauseAfterEvents.until;
      if (controls.eventDelayMs) await sleep(controls.eventDelayMs, undefined, { signal: closed }).catch(() => undefined);
      if (closed.aborted) return;
      const text = formatSseEvent(events[index]!);
      lastWrite = new Promise<void>((resolve) => response.write(text, () => resolve()));
    }
    response.end();
  }

  /** Waits for `until` unless the client goes away first; `false` when it did. */
  protected async hold(until: Promise<unknown> | undefined, closed: AbortSignal): Promise<boolean> {
    if (until && !closed.aborted) {
      let onAbort!: () => void;
      const gone = new Promise<void>((resolve) => closed.addEventListener('abort', (onAbort = () => resolve()), { once: true }));
      await Promise.race([until.catch(() => undefined), gone]);
      closed.removeEventListener('abort', onAbort);
    }
    return !closed.aborted;
  }

  /** Waits `ms` unless the client goes away first; `false` when it did. */
  protected async delay(ms: number | undefined, closed: AbortSignal): Promise<boolean> {
    if (!ms) return !closed.aborted;
    await sleep(ms, undefined, { signal: closed }).catch(() => undefined);
    return !closed.aborted;
  }

  private async receive(request: IncomingMessage, response: ServerResponse): Promise<void> {
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    response.once('close', () => (this.inFlight -= 1));
    const rawBody = await readAll(request);
    const url = new URL(request.url ?? '/', this.origin);
    const controller = new AbortController();
    const outcome = new Promise<'finished' | 'closed'>((resolve) => {
      response.once('close', () => {
        const finished = response.writableFinished;
        if (!finished) controller.abort();
        resolve(finished ? 'finished' : 'closed');
      });
    });
    const recorded: RecordedRequest = {
      method: request.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: request.headers,
      rawBody,
      body: await parseBody(rawBody, request.headers['content-type']),
      connection: this.sockets.get(request.socket) ?? 0,
      outcome,
    };
    if (this.recordRequests) this.requests.push(recorded);
    await this.route({ request: recorded, response, closed: controller.signal });
  }
}

function readAll(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

async function parseBody(raw: Buffer, contentType: string | undefined): Promise<unknown> {
  if (raw.length === 0) return undefined;
  if (contentType?.startsWith('multipart/form-data')) {
    // Node's WHATWG Request parses multipart for us; good enough for a test double
    const form = await new Request('http://fake.invalid/', { method: 'POST', headers: { 'content-type': contentType }, body: raw }).formData();
    const fields: Record<string, string | MultipartFile> = {};
    for (const [name, value] of form) {
      fields[name] =
        typeof value === 'string'
          ? value
          : { filename: value.name, type: value.type, size: value.size, sha256: createHash('sha256').update(Buffer.from(await value.arrayBuffer())).digest('hex') };
    }
    return fields;
  }
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
