import { hash } from 'node:crypto';
import { randomBase62 } from '../ids/random-id.js';

/**
 * Key secrets: `sk-gw-` + 43 base62 characters (≥ 256 bits from the CSPRNG). Only the SHA-256 of the
 * secret is stored (events, read models); the secret itself is shown once, in the issue response.
 * A fast hash is right here: the secret has full entropy, so there is nothing to brute-force.
 */
export const KEY_PREFIX = 'sk-gw-';

export function newKeySecret(): string {
  return `${KEY_PREFIX}${randomBase62(43)}`;
}

export function hashKeySecret(secret: string): string {
  // One-shot: every request hashes the secret it presents, and a Hash object cost more than the hashing.
  return hash('sha256', secret, 'hex');
}

/** What an admin may see to tell keys apart: the prefix and the last four characters. */
export function secretHint(secret: string): string {
  return `${KEY_PREFIX}…${secret.slice(-4)}`;
}
