import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Bytes from the CSPRNG, fetched 4 KiB at a time and handed out once each (as `crypto.randomUUID` does
 * with its own cache): a request id per request made a fresh buffer and a call into the CSPRNG per
 * request. Every byte is still used at most once.
 */
const pool = Buffer.alloc(4096);
let next = pool.length;

function randomByte(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]!;
}

/**
 * `length` base62 characters from the CSPRNG. Rejection sampling (bytes ≥ 248 are skipped) keeps every
 * character equally likely, which matters for key secrets.
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/** Prefixed random ids (DESIGN.md section 4): `gen-…` for requests, `org_…`, `key_…`, `video_…` for records. */
export const newRequestId = () => `gen-${randomBase62(24)}`;
export const newId = (prefix: IdPrefix) => `${prefix}_${randomBase62(22)}`;

export type IdPrefix = 'org' | 'team' | 'emp' | 'spc' | 'key' | 'video';

/**
 * Whether `value` has the shape of an id of that kind. A request naming an id of another shape (a NUL
 * byte, a slash, odd Unicode) is answered "not found" at the edge: no such record can exist, and the
 * stores refuse some of those bytes with an error rather than with nothing found.
 */
export function isId(prefix: IdPrefix, value: unknown): value is string {
  return typeof value === 'string' && value.length <= prefix.length + 65 && value.startsWith(`${prefix}_`) && /^[0-9A-Za-z]+$/.test(value.slice(prefix.length + 1));
}
