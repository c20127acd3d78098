import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now, for a server started next (a benchmark's
 * proxy, a private Redis or Postgres, a gateway under test). Shared by the benchmarks and the tests. The
 * port is released before it is returned, so another process could take it in between: start the server
 * at once.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
