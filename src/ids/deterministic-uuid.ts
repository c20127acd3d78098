import { hash as oneShotHash } from 'node:crypto';

/**
 * A name-based UUID (version 5 layout, SHA-1 of a namespace and a name). Events that answer one
 * command get ids derived from what they are about (e.g. `FundsReserved` of `gen-…`), so a retried
 * append after a lost answer is recognised by the store as the same event, not written twice.
 */
export function deterministicUuid(name: string): string {
  // One-shot hash: two a request, and a Hash object for each cost more than the hashing.
  const hash = oneShotHash('sha1', `model-gateway/events\0${name}`, 'buffer');
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
