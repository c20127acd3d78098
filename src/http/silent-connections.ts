import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Closes a connection that sends no request within `ms` of opening. Node's headersTimeout starts with
 * the first byte of a request, so a connection that sends nothing at all (thousands of them, from a
 * scanner or a client that opens a pool and never uses it) would hold a socket and a file descriptor for
 * good. Once a connection has carried a request, its idle time between requests is keepAliveTimeout's.
 */
export function closeSilentConnections(server: Server, ms: number): void {
  const waiting = new WeakMap<Socket, NodeJS.Timeout>();
  server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => socket.destroy(), ms);
    timer.unref();
    waiting.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  });
  server.on('request', (request) => {
    const timer = waiting.get(request.socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    waiting.delete(request.socket);
  });
}
