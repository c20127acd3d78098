import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool, type Dispatcher } from 'undici';

/**
 * The benchmark's floor: a pass-through proxy that does the least any gateway must do — accept the
 * request, forward its bytes to the upstream over pooled keep-alive connections, stream the answer back
 * chunk by chunk as it arrives. No parsing of bodies, no auth, no logging. The gateway is measured as a
 * ratio of this, so it is kept honestly fast: undici's raw dispatch API (no response stream object), and the
 * request body read whole before forwarding (a streamed request body costs undici several times more).
 */
export interface BareProxy {
  readonly url: string;
  close(): Promise<void>;
}

// RFC 9110 7.6.1: connection-specific headers are not forwarded
const HOP_BY_HOP: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host']);

function forwardable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

/** Writes the upstream answer to the client as it arrives, pausing the upstream when the client is slow. */
class ForwardingHandler implements Dispatcher.DispatchHandler {
  constructor(private readonly response: ServerResponse) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.response.once('close', () => {
      if (!this.response.writableFinished) controller.abort(new Error('client closed'));
    });
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.response.writeHead(statusCode, forwardable(headers));
    // event streams must reach the client event by event
    this.response.flushHeaders();
    this.response.on('drain', () => controller.resume());
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.response.write(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.response.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, _error: Error): void {
    if (this.response.headersSent) {
      this.response.destroy();
      return;
    }
    this.response.writeHead(502, { 'content-type': 'text/plain' });
    this.response.end('bad gateway');
  }
}

/** `upstreamUrl` is an origin, optionally with a path prefix that request paths are appended to. */
export async function startBareProxy(upstreamUrl: string, port = 0): Promise<BareProxy> {
  const upstream = new URL(upstreamUrl);
  const prefix = upstream.pathname.replace(/\/+$/, '');
  const pool = new Pool(upstream.origin, { connections: 256, pipelining: 1, keepAliveTimeout: 10_000 });
  const forward = (request: IncomingMessage, response: ServerResponse, body: Buffer | null): void => {
    pool.dispatch(
      { path: prefix + (request.url ?? '/'), method: request.method ?? 'GET', headers: forwardable(request.headers), body },
      new ForwardingHandler(response),
    );
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => forward(request, response, chunks.length === 0 ? null : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the bare proxy has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.close();
    },
  };
}
