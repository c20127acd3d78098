import type { Duplex } from 'node:stream';
import { GatewayError } from '../errors/gateway-error.js';
import { renderError } from '../errors/render-error.js';

/**
 * The server's `clientError` handler: what a client gets when Node's HTTP parser refuses its request
 * before any route sees it (a header with a bare LF or a control character, a header block over 16 KiB,
 * a broken request line or chunked body). Node's own answer is a bare status line with no body; here it
 * is the gateway's error body, in the route's style, so that a client reads the code it reads everywhere else: `400
 * invalid_request`, or `431` with `request_too_large` for headers over Node's 16 KiB. A request that
 * timed out (CLIENT_REQUEST_TIMEOUT_MS) keeps Node's `408`. The connection is closed either way.
 */
export function answerMalformedRequest(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const refusal = tooLarge
    ? new GatewayError('request_too_large', 'the request headers are larger than 16 KiB')
    : new GatewayError('invalid_request', 'the request is not valid HTTP/1.1 (a header with a control character or a bare line feed, a broken request line or body)');
  // the request line was read before the fault: /v1/messages answers in its own style, as its route would
  const path = /^[A-Z]+ (\S+)/.exec((error as { rawPacket?: Buffer }).rawPacket?.toString('latin1', 0, 512) ?? '')?.[1] ?? '';
  const body = JSON.stringify(renderError(refusal, /^\/(v1\/)?messages(\?|$)/.test(path) ? 'messages' : 'openai'));
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
