import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Busboy, type BusboyFileStream } from '@fastify/busboy';
import type { MultipartUpload, UploadedFile } from '../endpoints/multipart/multipart-upload.js';
import { GatewayError } from '../errors/gateway-error.js';
import { tooLarge } from './request-body.js';

/** Far above any real form (a transcription has eight fields at most); bounds what a hostile body can make us keep. */
const MAX_FIELDS = 64;
const MAX_FIELD_BYTES = 256 * 1024;
const MAX_PARTS = 128;

/** The field that carries the upload (OpenAI's name for it on every multipart API that takes a file). */
export const FILE_FIELD = 'file';

/**
 * Reads a `multipart/form-data` body with a streaming parser (`@fastify/busboy`): text fields are kept,
 * the one file is written to a spool file as it arrives (with backpressure: a slow disk slows the client,
 * memory stays flat), so a 26 MiB upload never sits in memory. The size limit counts every byte of the
 * body, refused with `413 request_too_large` as soon as it is passed; anything unparseable is
 * `400 invalid_multipart`. On a failure the spool file is removed and the rest of the body discarded.
 * With `fileField: null` the form takes no file: each file part is read past without being kept, and its
 * field named in `unreadFiles`, for the endpoint to refuse it by name.
 */
export function readMultipart(
  request: IncomingMessage,
  limit: number,
  { fileField = FILE_FIELD, spoolDirectory = tmpdir() }: { fileField?: string | null; spoolDirectory?: string } = {},
): Promise<MultipartUpload> {
  const contentType = request.headers['content-type'];
  if (!contentType || !/^multipart\/form-data\s*;.*boundary=/i.test(contentType)) {
    request.resume();
    return Promise.reject(new GatewayError('invalid_multipart', 'the body must be multipart/form-data with a boundary'));
  }
  return new Promise<MultipartUpload>((resolve, reject) => {
    const fields: Array<readonly [string, string]> = [];
    const unreadFiles: string[] = [];
    let file: UploadedFile | undefined;
    let spooling: Promise<void> | undefined;
    let spoolPath: string | undefined;
    let activeFile: BusboyFileStream | undefined;
    let failed = false;
    let received = 0;

    const fail = (error: GatewayError) => {
      if (failed) return;
      failed = true;
      request.unpipe(parser);
      request.off('data', count);
      request.resume(); // the client may finish sending, so that it can read the answer
      activeFile?.destroy();
      parser.destroy();
      // the spool file is removed once its writer has closed (an unlink before the open would leave it behind)
      void (spooling ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => (spoolPath ? rm(spoolPath, { force: true }) : undefined))
        .finally(() => reject(error));
    };
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) fail(tooLarge(limit));
    };

    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: { ...request.headers, 'content-type': contentType },
        limits: { fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: MAX_PARTS, files: fileField === null ? MAX_PARTS : 1, fileSize: limit },
      });
    } catch (error) {
      request.resume();
      reject(new GatewayError('invalid_multipart', `the multipart body cannot be parsed: ${(error as Error).message}`));
      return;
    }
    parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (valueTruncated) return fail(new GatewayError('invalid_multipart', `the field ${name} is longer than ${MAX_FIELD_BYTES / 1024} KiB`));
      fields.push([name, value]);
    });
    parser.on('file', (name, stream: BusboyFileStream, filename, _encoding, mimeType) => {
      if (fileField === null) {
        stream.resume();
        unreadFiles.push(name);
        return;
      }
      if (name !== fileField || failed) {
        stream.resume();
        if (name !== fileField) fail(new GatewayError('invalid_multipart', `unexpected file in the field ${name}; the upload goes in the field ${fileField}`, { param: name }));
        return;
      }
      activeFile = stream;
      const path = (spoolPath = join(spoolDirectory, `gateway-upload-${randomUUID()}`));
      const uploaded = { field: name, filename: filename || 'upload', contentType: mimeType || 'application/octet-stream', path, size: 0 };
      spooling = pipeline(stream, createWriteStream(path, { flags: 'wx', mode: 0o600 })).then(() => {
        file = { ...uploaded, size: stream.bytesRead };
      });
      spooling.catch((error: NodeJS.ErrnoException) =>
        fail(
          // a failing disk is the gateway's fault (logged, 500); anything else is the body ending inside the file
          error.syscall
            ? new GatewayError('internal_error', 'the upload could not be written to the spool directory', { cause: error })
            : new GatewayError('invalid_multipart', 'the uploaded file ended early'),
        ),
      );
    });
    parser.on('filesLimit', () => fail(new GatewayError('invalid_multipart', `only one file may be sent, in the field ${fileField}`)));
    parser.on('fieldsLimit', () => fail(new GatewayError('invalid_multipart', `more than ${MAX_FIELDS} fields`)));
    parser.on('partsLimit', () => fail(new GatewayError('invalid_multipart', `more than ${MAX_PARTS} parts`)));
    parser.on('error', (error: unknown) => fail(new GatewayError('invalid_multipart', `the multipart body cannot be parsed: ${(error as Error).message}`)));
    parser.on('finish', () => {
      void (spooling ?? Promise.resolve()).then(
        () => {
          if (!failed) resolve({ fields, file, unreadFiles });
        },
        () => undefined, // failed above
      );
    });
    request.on('data', count);
    request.on('close', () => {
      if (!request.complete) fail(new GatewayError('invalid_multipart', 'the client closed the connection before the body ended'));
    });
    request.pipe(parser);
  });
}

/** Removes the spooled file once the request has ended. */
export async function discardUpload(upload: MultipartUpload): Promise<void> {
  if (upload.file) await rm(upload.file.path, { force: true });
}
