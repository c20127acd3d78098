import { errorCatalogue, isErrorCode } from '../../src/errors/error-catalogue.js';

/** The bad-input tier's fixed cases and its judge (bad-input.test.ts). */
const TEXT = 'openai/gpt-4o-mini';

export type Style = 'openai' | 'messages' | 'admin';

export interface Received {
  readonly status: number;
  readonly text: string;
}

/**
 * What the generator found, fixed with the fix that made each pass (status and code, or the messages
 * style's type): kept as plain cases, so that they run whatever the generator draws next time.
 */
export const REGRESSIONS: ReadonlyArray<{ why: string; method: string; path: string; body?: string; headers?: Record<string, string>; status: number; code: string }> = [
  { why: 'a NUL byte in a video id reached Postgres (500)', method: 'GET', path: '/v1/videos/video_a%00', status: 404, code: 'video_not_found' },
  { why: 'odd Unicode in a video id reached Postgres (500)', method: 'DELETE', path: '/v1/videos/%e2%80%ae%00', status: 404, code: 'video_not_found' },
  { why: 'a NUL byte in a list cursor reached Postgres (500)', method: 'GET', path: '/v1/videos?after=video_a%00', status: 400, code: 'invalid_request' },
  { why: 'a NUL byte in a key id reached Postgres (500)', method: 'GET', path: '/admin/v1/keys/key_a%00', status: 404, code: 'resource_not_found' },
  { why: 'a NUL byte in an organization id reached Postgres (500)', method: 'GET', path: '/admin/v1/organizations/%e2%80%ae%00', status: 404, code: 'resource_not_found' },
  { why: 'max_tokens 0 reserved no output and was served', method: 'POST', path: '/v1/chat/completions', body: JSON.stringify({ model: TEXT, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 0 }), status: 400, code: 'invalid_request' },
  { why: 'max_output_tokens 0 reserved no output and was served', method: 'POST', path: '/v1/responses', body: JSON.stringify({ model: TEXT, input: 'Hi', max_output_tokens: 0 }), status: 400, code: 'invalid_request' },
  { why: 'images: a stream that is not a boolean went to the provider', method: 'POST', path: '/v1/images/generations', body: JSON.stringify({ model: 'openai/gpt-image-1', prompt: 'a cat', stream: 'yes' }), status: 400, code: 'invalid_request' },
  { why: 'images: a response_format object went to the provider', method: 'POST', path: '/v1/images/generations', body: JSON.stringify({ model: 'openai/gpt-image-1', prompt: 'a cat', response_format: { nested: true } }), status: 400, code: 'unsupported_response_format' },
  { why: 'a header with a bare line feed was answered by Node without a body', method: 'POST', path: '/v1/chat/completions', body: '{}', headers: { 'x-service-space': 'spc_x\nX-Injected: 1' }, status: 400, code: 'invalid_request' },
  { why: 'headers over 16 KiB were answered by Node without a body', method: 'POST', path: '/v1/chat/completions', body: '{}', headers: { 'x-padding': 'a'.repeat(20_000) }, status: 431, code: 'request_too_large' },
];

/** undefined when the answer is a documented 4xx in the route's style; else what is wrong with it. */
export function judge(style: Style, received: Received): string | undefined {
  if (received.status < 400 || received.status >= 500) return 'not a 4xx';
  let body: any;
  try {
    body = JSON.parse(received.text);
  } catch {
    return 'not JSON';
  }
  if (style === 'messages') {
    if (body?.type !== 'error' || typeof body?.error?.type !== 'string' || typeof body?.error?.message !== 'string') return 'not in the messages error style';
    return undefined;
  }
  const code = body?.error?.code;
  if (typeof code !== 'string' || !isErrorCode(code)) return `code ${code} not in the catalogue`;
  // headers over Node's 16 KiB: 431 with request_too_large (src/http/malformed-request.ts)
  const headersTooLarge = received.status === 431 && code === 'request_too_large';
  if (errorCatalogue[code].status !== received.status && !headersTooLarge) return `status ${received.status} is not ${code}'s`;
  return undefined;
}

/** The status and the body of a raw HTTP/1.1 answer read to the connection's close (chunked or not). */
export function parseAnswer(raw: Buffer): Received {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return { status: 0, text: `no complete answer: ${raw.toString('latin1').slice(0, 200)}` };
  const head = raw.subarray(0, end).toString('latin1');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  let body = raw.subarray(end + 4);
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
    const parts: Buffer[] = [];
    for (let at = 0; at < body.length; ) {
      const lineEnd = body.indexOf('\r\n', at);
      const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
      if (!size) break;
      parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  }
  return { status, text: body.toString('utf8') };
}

/** Each byte of the id's UTF-8 percent-encoded but for the unreserved ones (a lone surrogate goes as U+FFFD's bytes). */
export function pathSegment(id: string): string {
  return [...Buffer.from(id, 'utf8')].map((byte) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).padStart(2, '0')}`)).join('');
}
