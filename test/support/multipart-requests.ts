import { request, type IncomingHttpHeaders } from 'node:http';

/**
 * Multipart requests written by hand, for what the official SDKs will not send: a broken body, a body
 * larger than the limit, an upload generated while it is sent (so that the test process never holds it).
 */
export interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** Parsed when the answer is JSON; read field by field in assertions. */
  readonly json: any;
}

/** A WAV file of `seconds` of a 440 Hz tone, 16 kHz mono 16-bit PCM: 44 + 32,000 bytes a second. */
export function speechWav(seconds: number): Buffer {
  const rate = 16_000;
  const samples = rate * seconds;
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28); // bytes a second
  wav.writeUInt16LE(2, 32); // block align
  wav.writeUInt16LE(16, 34); // bits a sample
  wav.write('data', 36);
  wav.writeUInt32LE(samples * 2, 40);
  for (let index = 0; index < samples; index++) wav.writeInt16LE(Math.round(8_000 * Math.sin((2 * Math.PI * 440 * index) / rate)), 44 + index * 2);
  return wav;
}

const BOUNDARY = 'test-boundary-7d1f';

export function multipartHead(fields: Record<string, string>, filename = 'speech.wav', type = 'audio/wav'): Buffer {
  const parts = Object.entries(fields).map(([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  return Buffer.from(`${parts.join('')}--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`);
}

export const MULTIPART_TAIL = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
export const MULTIPART_CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** A form with text fields and one file in the field `file` (or none when `file` is undefined). */
export function postMultipart(
  base: string,
  path: string,
  secret: string,
  fields: Record<string, string>,
  file: Buffer | undefined,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const body = file
    ? Buffer.concat([multipartHead(fields), file, MULTIPART_TAIL])
    : Buffer.from(`${Object.entries(fields).map(([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('')}--${BOUNDARY}--\r\n`);
  return sendRaw(base, path, { authorization: `Bearer ${secret}`, 'content-type': MULTIPART_CONTENT_TYPE, ...headers }, [body]);
}

/**
 * Sends `chunks` as the body (a generator keeps a large body out of the test's memory) and resolves with
 * the answer as soon as it is complete, even if the body was not all sent. With `{ end: false }` the body
 * is left open after the chunks: an answer then proves the server decided before the body ended.
 */
export function sendRaw(
  base: string,
  path: string,
  headers: Record<string, string>,
  chunks: Iterable<Buffer>,
  { end = true }: { end?: boolean } = {},
): Promise<RawAnswer & { bytesSent: number }> {
  return new Promise((resolve, reject) => {
    let bytesSent = 0;
    let answered = false;
    const req = request(`${base}${path}`, { method: 'POST', headers }, (res) => {
      const received: Buffer[] = [];
      res.on('data', (chunk: Buffer) => received.push(chunk));
      res.on('end', () => {
        answered = true;
        const text = Buffer.concat(received).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, json, bytesSent });
        req.destroy();
      });
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const iterator = chunks[Symbol.iterator]();
    const pump = (): void => {
      while (!answered) {
        const next = iterator.next();
        if (next.done) {
          if (end) req.end();
          return;
        }
        bytesSent += next.value.length;
        if (!req.write(next.value)) {
          req.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

/** `size` bytes of a file, made 64 KiB at a time while they are sent. */
export function* generatedBytes(size: number, chunkSize = 64 * 1024): Generator<Buffer> {
  const chunk = Buffer.alloc(chunkSize, 0x55);
  for (let sent = 0; sent < size; sent += chunkSize) yield size - sent >= chunkSize ? chunk : chunk.subarray(0, size - sent);
}
