import { Transform, type TransformCallback } from 'node:stream';

/** One byte range of a file of known size, inclusive at both ends (RFC 9110 14.1.2). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/**
 * The range a `Range` header asks of a file of `size` bytes: `bytes=a-b`, `bytes=a-` or `bytes=-n` (the
 * last n bytes), an end past the file cut to its last byte; `unsatisfiable` when it starts past the end.
 * Anything else (several ranges, other units, a malformed header) is `undefined`: the whole file is sent,
 * as RFC 9110 lets a server do.
 */
export function requestedRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  const match = header === undefined ? null : /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size) return 'unsatisfiable';
  if (end < start) return undefined;
  return { start, end };
}

/**
 * Passes on only the bytes of `range` of the stream piped through it (from a provider that sent the whole
 * file), and ends once the range is through; the caller stops reading the upstream body then.
 */
export function rangeSlice(range: ByteRange): Transform {
  let offset = 0;
  let through = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      if (through) return done();
      const from = Math.max(range.start - offset, 0);
      const to = Math.min(range.end + 1 - offset, chunk.length);
      offset += chunk.length;
      if (to > from) this.push(chunk.subarray(from, to));
      if (offset > range.end) {
        through = true;
        this.push(null);
      }
      done();
    },
  });
}
