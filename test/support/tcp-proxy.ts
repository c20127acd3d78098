import { createServer, Socket, type Server } from 'node:net';

/**
 * A TCP proxy in front of a real service, so a test can make that service "stop" for one gateway
 * (close the proxy and every connection through it) without stopping the shared server.
 */
export interface TcpProxy {
  readonly port: number;
  /** Closes the listener and every proxied connection. */
  close(): Promise<void>;
}

/** `port`: listen on that port (to bring a closed proxy back where its clients reconnect); 0 = any free port. */
export async function startTcpProxy(targetHost: string, targetPort: number, port = 0): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
