import type { ServerResponse } from 'node:http';

/**
 * A JSON answer in one write: status line, headers and body (the headers express's `res.json` sends,
 * without its per-request machinery).
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

/** A text answer with its content type (charset included) in one write. */
export function sendText(res: ServerResponse, status: number, contentType: string, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
