import type { IncomingMessage } from 'node:http';
import { MiB } from '../endpoints/body-limits.js';
import { GatewayError } from '../errors/gateway-error.js';
import { jsonNestingDepthExceeds, type JsonObject } from '../formats/json-value.js';

/**
 * Refuses a body whose declared size is over the limit at once, before anything else is done for it
 * (`413 request_too_large`; the client may finish writing so that it can read the answer).
 */
export function refuseDeclaredOversize(request: IncomingMessage, limit: number): void {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    request.resume();
    throw tooLarge(limit);
  }
}

/**
 * Reads a request body into one Buffer, refusing it with `413 request_too_large` as soon as it is known
 * to be too large: at once from Content-Length, or while reading a chunked body, whose further bytes are
 * then discarded rather than kept. The body is never buffered beyond the limit.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  try {
    refuseDeclaredOversize(request, limit);
  } catch (error) {
    return Promise.reject(error);
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

export function tooLarge(limit: number): GatewayError {
  return new GatewayError('request_too_large', `the request body is larger than ${limit / MiB} MiB`);
}

/**
 * How deep a request body may nest. Far beyond any real request (a tool's JSON schema rarely passes 20
 * levels), and far below where the body's walks run out of stack: `JSON.parse` takes any depth, but
 * `JSON.stringify`, which forwards the body, throws from about 4,000 levels on Node's default stack.
 */
export const MAX_JSON_DEPTH = 128;

/** Parses a JSON body once; anything but a JSON object is `400 invalid_json`, nesting past the limit `400 json_too_deep`. */
export function parseJsonObject(body: Buffer): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new GatewayError('invalid_json', `the request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new GatewayError('invalid_json', 'the request body must be a JSON object');
  }
  if (jsonNestingDepthExceeds(value, MAX_JSON_DEPTH)) {
    throw new GatewayError('json_too_deep', `the request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return value as JsonObject;
}
