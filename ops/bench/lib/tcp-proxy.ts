import { createServer, Socket, type Server } from 'node:net';

/**
 * A TCP proxy in front of a real service (Postgres, Redis), so that a test or a benchmark can make that
 * service fail for the processes behind the proxy without touching the shared server: `close` it (the
 * service went away: connections closed, new ones refused), `stall` it (a hung server or a dropped
 * route: connections stay open and nothing comes back), or `reset` its connections (a crash of the
 * server or a middlebox: every connection gets a TCP RST). The test suite and the reliability soak
 * (ops/bench/soak.ts) share it.
 */
export interface TcpProxy {
  readonly port: number;
  /** Closes the listener and every proxied connection. */
  close(): Promise<void>;
  /** Stops forwarding bytes either way, on open connections and on those made later; nothing is closed. */
  stall(): void;
  /** Forwards again after `stall`, on the same connections (the bytes held meanwhile flow on). */
  resume(): void;
  /** Resets every open connection (TCP RST both ways); new connections are accepted as before. */
  reset(): void;
}

/** `port`: listen on that port (to bring a closed proxy back where its clients reconnect); 0 = any free port. */
export async function startTcpProxy(targetHost: string, targetPort: number, port = 0): Promise<TcpProxy> {
  const pairs = new Map<Socket, Socket>();
  let stalled = false;
  const connect = (client: Socket, upstream: Socket) => {
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(targetPort, targetHost);
    pairs.set(client, upstream);
    for (const socket of [client, upstream]) {
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
        pairs.delete(client);
      });
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    if (stalled) client.pause();
    else connect(client, upstream);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const [client, upstream] of pairs) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
    stall: () => {
      stalled = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    resume: () => {
      stalled = false;
      for (const [client, upstream] of pairs) connect(client, upstream);
    },
    reset: () => {
      for (const [client, upstream] of [...pairs]) {
        client.resetAndDestroy();
        upstream.resetAndDestroy();
      }
    },
  };
}
