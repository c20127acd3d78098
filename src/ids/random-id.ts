import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * `length` base62 characters from the CSPRNG. Rejection sampling (bytes ≥ 248 are skipped) keeps every
 * character equally likely, which matters for key secrets.
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(Math.ceil((length - out.length) * 1.1) + 4)) {
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Prefixed random ids (DESIGN.md section 4): `gen-…` for requests, `org_…`, `key_…`, `video_…` for records. */
export const newRequestId = () => `gen-${randomBase62(24)}`;
export const newId = (prefix: 'org' | 'team' | 'emp' | 'spc' | 'key' | 'video') => `${prefix}_${randomBase62(22)}`;
