import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';

export const MiB = 1024 * 1024;
/** Spec 8: 32 MiB for every endpoint, 26 MiB for speech. */
export const DEFAULT_BODY_LIMIT = 32 * MiB;
export const SPEECH_BODY_LIMIT = 26 * MiB;

/**
 * Reads a request body into one Buffer, refusing it with `413 request_too_large` as soon as it is known
 * to be too large: at once from Content-Length, or while reading a chunked body, whose further bytes are
 * then discarded rather than kept. The body is never buffered beyond the limit.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    request.resume(); // let the client finish writing so it can read our answer
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let overflowed = false;
    request.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (overflowed) return;
      if (received > limit) {
        overflowed = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => (overflowed ? reject(tooLarge(limit)) : resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received))));
    request.on('error', reject);
  });
}

function tooLarge(limit: number): GatewayError {
  return new GatewayError('request_too_large', `the request body is larger than ${limit / MiB} MiB`);
}

/** Parses a JSON body once; anything but a JSON object is `400 invalid_json`. */
export function parseJsonObject(body: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new GatewayError('invalid_json', `the request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new GatewayError('invalid_json', 'the request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
