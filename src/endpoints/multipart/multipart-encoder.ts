import { createReadStream } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { UploadedFile } from './multipart-upload.js';

/** A multipart body to send on: streamed, with its exact length known in advance. */
export interface EncodedMultipart {
  readonly contentType: string;
  readonly contentLength: number;
  /** Reads the spooled file as it is sent; call once. */
  open(): Readable;
}

/**
 * Encodes text fields and one spooled file as `multipart/form-data` (RFC 7578) without loading the file:
 * the parts' headers are small buffers, the file is read from disk while the provider takes it. The length
 * is computed up front, so the provider gets a `Content-Length` rather than a chunked upload.
 */
export function encodeMultipart(fields: ReadonlyArray<readonly [string, string]>, file: UploadedFile): EncodedMultipart {
  const boundary = `gateway-${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    fields.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`).join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; filename="${quoted(file.filename)}"\r\n` +
      `Content-Type: ${file.contentType.replace(/[\r\n]/g, '')}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: head.length + file.size + tail.length,
    open: () => Readable.from(parts(head, file.path, tail)),
  };
}

async function* parts(head: Buffer, path: string, tail: Buffer): AsyncGenerator<Buffer> {
  yield head;
  yield* createReadStream(path) as AsyncIterable<Buffer>;
  yield tail;
}

/** The WHATWG form encoding of names in a Content-Disposition header: quote, CR and LF percent-encoded. */
function quoted(name: string): string {
  return name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
