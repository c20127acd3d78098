import type { AccessDirectory } from '../access/access-directory.js';

/**
 * The requests running on this instance, by key, so that a revocation cuts them off (spec 3 rule 5,
 * 5.7): when the directory applies `KeyRevoked`, every request of that key is aborted with the reason
 * `key_revoked`, and the pipeline ends it with that error and charges what was received.
 */
export const KEY_REVOKED = 'key_revoked';

export class InFlightRequests {
  private readonly byKey = new Map<string, Set<AbortController>>();

  constructor(directory: AccessDirectory) {
    directory.onKeyChange((key) => {
      if (!key.revoked) return;
      for (const controller of this.byKey.get(key.keyId) ?? []) controller.abort(KEY_REVOKED);
    });
  }

  /** Registers a request; the returned function unregisters it. */
  track(keyId: string, controller: AbortController): () => void {
    let requests = this.byKey.get(keyId);
    if (!requests) this.byKey.set(keyId, (requests = new Set()));
    requests.add(controller);
    return () => {
      requests.delete(controller);
      if (requests.size === 0) this.byKey.delete(keyId);
    };
  }
}
