import type { EventStore, RecordedEvent, Subscription } from '../eventstore/event-store.js';
import type { Logger } from '../logger.js';
import { decodeAccessEvent } from './access-event-catalogue.js';
import { ACCESS_STREAM_PREFIXES, keyStreamId, organizationStreamId, type KeyEvent, type OrganizationEvent } from './access-events.js';
import { evolveKey, initialKeyState, type KeyState } from './key-decider.js';
import { evolveOrganization, initialOrganizationState, type OrganizationState } from './organization-decider.js';

/**
 * Every key and organization, in memory, built only from events (a subscription to the `org-` and
 * `key-` streams). Authentication is one map lookup. Nothing is ever written back into it from request
 * state (peer-pitfalls: "in-flight requests write stale key records back into the cache").
 *
 * A stream can also be refreshed on demand: when the account fence says this instance decided on an
 * older revision of a key or organization, `refresh` reads that stream's tail before deciding again.
 */
export class AccessDirectory {
  private readonly keysByHash = new Map<string, KeyState>();
  private readonly keysById = new Map<string, KeyState>();
  private readonly organizations = new Map<string, OrganizationState>();
  private readonly revisions = new Map<string, bigint>();
  private readonly keyListeners = new Set<(key: KeyState) => void>();
  private subscription: Subscription | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly logger?: Logger,
  ) {}

  /** Catches up with every access event, then follows new ones. */
  async start(): Promise<void> {
    this.subscription = this.store.subscribe(
      // Changes made through this instance are applied at once (`refresh`); a spending request on stale
      // data is caught by the account's access fence. What is left to the subscription (another
      // instance's changes, for /v1/models and in-flight cut-offs) can wait 50 ms, and reading on every
      // append of a busy gateway cost a round trip per append for events that are never there.
      { from: 'start', streamPrefixes: ACCESS_STREAM_PREFIXES, minReadIntervalMs: 50 },
      (event) => this.apply(event),
      (error) => this.logger?.error({ err: error }, 'access directory subscription stopped'),
    );
    await this.subscription.caughtUp();
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }

  keyBySecretHash(hash: string): KeyState | undefined {
    return this.keysByHash.get(hash);
  }

  key(keyId: string): KeyState | undefined {
    return this.keysById.get(keyId);
  }

  keysOfOrganization(orgId: string): KeyState[] {
    return [...this.keysById.values()].filter((key) => key.orgId === orgId);
  }

  organization(orgId: string): OrganizationState | undefined {
    return this.organizations.get(orgId);
  }

  /** The revision of a stream this directory has applied (-1n when none). */
  revision(streamId: string): bigint {
    return this.revisions.get(streamId) ?? -1n;
  }

  /** Called on every change of a key (a revocation cuts off that key's requests in flight). */
  onKeyChange(listener: (key: KeyState) => void): () => void {
    this.keyListeners.add(listener);
    return () => this.keyListeners.delete(listener);
  }

  /** Reads the tail of access streams, so decisions are taken on at least these revisions. */
  async refresh(streamIds: readonly string[]): Promise<void> {
    for (const streamId of streamIds) {
      const tail = await this.store.readStream(streamId, { fromRevision: this.revision(streamId) + 1n });
      for (const event of tail) this.apply(event);
    }
  }

  /** Streams whose revisions a reserve for this key must carry (see the account fence). */
  accessStreamsOf(key: KeyState): [string, string] {
    return [keyStreamId(key.keyId), organizationStreamId(key.orgId)];
  }

  private apply(event: RecordedEvent): void {
    const known = this.revisions.get(event.streamId);
    if (known !== undefined && event.revision <= known) return; // already applied by a refresh
    this.revisions.set(event.streamId, event.revision);
    if (event.streamId.startsWith('key-')) {
      const previous = this.keysById.get(event.streamId.slice(4)) ?? initialKeyState;
      const key = evolveKey(previous, decodeAccessEvent(event) as KeyEvent);
      this.keysById.set(key.keyId, key);
      this.keysByHash.set(key.secretHash, key);
      for (const listener of this.keyListeners) listener(key);
    } else if (event.streamId.startsWith('org-')) {
      const orgId = event.streamId.slice(4);
      const previous = this.organizations.get(orgId) ?? initialOrganizationState;
      this.organizations.set(orgId, evolveOrganization(previous, decodeAccessEvent(event) as OrganizationEvent));
    }
  }
}
