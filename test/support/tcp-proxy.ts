import { createServer, Socket, type Server } from 'node:net';

/**
 * A TCP proxy in front of a real service, so a test can make that service "stop" for one gateway
 * (close the proxy and every connection through it) without stopping the shared server, or make it stop
 * answering while the connections stay open (`stall`), as a hung server or a dropped route does.
 */
export interface TcpProxy {
  readonly port: number;
  /** Closes the listener and every proxied connection. */
  close(): Promise<void>;
  /** Stops forwarding bytes either way, on open connections and on those made later; nothing is closed. */
  stall(): void;
}

/** `port`: listen on that port (to bring a closed proxy back where its clients reconnect); 0 = any free port. */
export async function startTcpProxy(targetHost: string, targetPort: number, port = 0): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const pairs = new Map<Socket, Socket>();
  let stalled = false;
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => {
        sockets.delete(socket);
        pairs.delete(client);
      });
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    pairs.set(client, upstream);
    if (stalled) client.pause();
    else client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
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
  };
}
