import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got, and what it answered. */
export interface ReceivedWebhook {
  readonly headers: Record<string, string | undefined>;
  readonly body: string;
  readonly status: number;
  readonly at: number;
}

/**
 * A webhook receiver: a real HTTP server on 127.0.0.1 that records every request and answers each with the
 * status `answer` gives (200 unless told otherwise), as an organization's alert endpoint would.
 */
export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedWebhook[];
  /** The status for the next request, given how many came before it. */
  answer: (index: number) => number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const receiver: { answer: (index: number) => number } = { answer: () => 200 };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const status = receiver.answer(received.length);
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value[0] : value]));
      received.push({ headers, body: Buffer.concat(chunks).toString('utf8'), status, at: Date.now() });
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'receiver down');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks/gateway`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
