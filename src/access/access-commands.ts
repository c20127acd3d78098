import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { WrongExpectedRevisionError, type EventStore } from '../eventstore/event-store.js';
import { GatewayError } from '../errors/gateway-error.js';
import { newId } from '../ids/random-id.js';
import type { Accounts } from '../ledger/accounts.js';
import {
  keyStreamId,
  organizationStreamId,
  type AlertWebhook,
  type BudgetAlertRules,
  type KeyEvent,
  type KeySettings,
  type LimitPair,
  type OrganizationEvent,
  type OrganizationStatus,
} from './access-events.js';
import type { AccessDirectory } from './access-directory.js';
import { accessEventCatalogue, decodeAccessEvent } from './access-event-catalogue.js';
import { decideKey, evolveKey, initialKeyState, type KeyDecision, type KeyState } from './key-decider.js';
import { hashKeySecret, newKeySecret, secretHint } from './key-secret.js';
import {
  changesSpendingRules,
  decideOrganization,
  evolveOrganization,
  initialOrganizationState,
  type OrganizationCommand,
  type OrganizationState,
} from './organization-decider.js';

/** What the key and organization deciders return. */
type Decision<E> = { readonly events: E[] } | { readonly rejection: GatewayError };

/**
 * The admin commands on organizations and keys, shared by the admin HTTP API and the admin CLI (one
 * implementation). Each loads its stream, decides, and appends with the expected revision, retrying on
 * a conflict. A change that binds spending (revocation, limits, model list, blocking) then fences the
 * organization's account stream, so every instance applies it from the very next request.
 */
export class AccessCommands {
  constructor(
    private readonly store: EventStore,
    private readonly accounts: Accounts,
    private readonly directory: AccessDirectory,
    private readonly clock: Clock,
  ) {}

  async createOrganization(input: { name: string; piiMasking: boolean; spendLimits: LimitPair }, actor: string): Promise<OrganizationState> {
    const orgId = newId('org');
    return (await this.onOrganization(orgId, { type: 'CreateOrganization', orgId, ...input }, actor)).state;
  }

  async changeOrganization(
    orgId: string,
    changes: { status?: OrganizationStatus; piiMasking?: boolean; spendLimits?: LimitPair; maxConcurrentRequests?: number | null },
    actor: string,
  ) {
    return (await this.onOrganization(orgId, { type: 'ChangeOrganization', ...changes }, actor)).state;
  }

  /** Replaces the organization's budget alerts; a rule naming a key needs a key of the organization. */
  async setBudgetAlerts(orgId: string, rules: BudgetAlertRules, actor: string): Promise<OrganizationState> {
    for (const rule of rules.limitPercentages) {
      if (rule.scope !== 'key' || rule.id === null) continue;
      const key = await this.loadKey(rule.id).catch(() => undefined);
      if (key?.orgId !== orgId) throw new GatewayError('invalid_request', `${rule.id} is not a key of this organization`, { param: 'limit_percentages' });
    }
    return (await this.onOrganization(orgId, { type: 'SetBudgetAlerts', rules }, actor)).state;
  }

  /** Sets (or with null removes) where the organization's alerts go, and the secret they are signed with. */
  async setAlertWebhook(orgId: string, webhook: AlertWebhook | null, actor: string): Promise<OrganizationState> {
    return (await this.onOrganization(orgId, { type: 'SetAlertWebhook', webhook }, actor)).state;
  }

  async createTeam(orgId: string, input: { name: string; spendLimits: LimitPair }, actor: string): Promise<string> {
    const teamId = newId('team');
    await this.onOrganization(orgId, { type: 'CreateTeam', teamId, ...input }, actor);
    return teamId;
  }

  async createEmployee(orgId: string, input: { name: string; teamId: string | null; spendLimits: LimitPair }, actor: string): Promise<string> {
    const employeeId = newId('emp');
    await this.onOrganization(orgId, { type: 'CreateEmployee', employeeId, ...input }, actor);
    return employeeId;
  }

  async createSpace(orgId: string, input: { name: string }, actor: string): Promise<string> {
    const spaceId = newId('spc');
    await this.onOrganization(orgId, { type: 'CreateSpace', spaceId, ...input }, actor);
    return spaceId;
  }

  /** Issues a key; the secret is in the answer and nowhere else (only its hash is stored). */
  async issueKey(
    orgId: string,
    input: KeySettings & { name: string | null; employeeId: string | null },
    actor: string,
  ): Promise<{ secret: string; key: KeyState }> {
    const organization = await this.loadOrganization(orgId);
    const keyId = newId('key');
    const secret = newKeySecret();
    const command = { type: 'IssueKey' as const, keyId, ...input, secretHash: hashKeySecret(secret), secretHint: secretHint(secret) };
    const { state } = await this.onKey(keyId, (key) => decideKey(key, command, organization), actor);
    return { secret, key: state };
  }

  async changeKey(keyId: string, changes: Partial<KeySettings>, actor: string): Promise<KeyState> {
    const result = await this.onKey(keyId, (key, organization) => decideKey(key, { type: 'ChangeKey', changes }, organization), actor);
    return result.state;
  }

  async revokeKey(keyId: string, actor: string): Promise<KeyState> {
    return (await this.onKey(keyId, (key, organization) => decideKey(key, { type: 'RevokeKey' }, organization), actor)).state;
  }

  async addCredits(orgId: string, amount: bigint, idempotencyKey: string | undefined, actor: string): Promise<bigint> {
    await this.loadOrganization(orgId);
    const outcome = await this.accounts.execute(orgId, { type: 'AddCredits', amount, ...(idempotencyKey ? { idempotencyKey } : {}) }, `admin:${actor}`);
    if ('rejection' in outcome.decision) throw outcome.decision.rejection;
    return outcome.balance;
  }

  /** The organization's keys as this instance knows them (the directory follows every key stream). */
  async keysOf(orgId: string): Promise<KeyState[]> {
    return this.directory.keysOfOrganization(orgId);
  }

  async loadOrganization(orgId: string): Promise<OrganizationState> {
    const { state } = await this.load(organizationStreamId(orgId), initialOrganizationState, (s, e) => evolveOrganization(s, e as OrganizationEvent));
    if (!state.exists) throw new GatewayError('resource_not_found', `no organization ${orgId}`);
    return state;
  }

  async loadKey(keyId: string): Promise<KeyState> {
    const { state } = await this.load(keyStreamId(keyId), initialKeyState, (s, e) => evolveKey(s, e as KeyEvent));
    if (!state.exists) throw new GatewayError('resource_not_found', `no key ${keyId}`);
    return state;
  }

  private async onOrganization(orgId: string, command: OrganizationCommand, actor: string) {
    return this.run(
      organizationStreamId(orgId),
      initialOrganizationState,
      (state, event) => evolveOrganization(state, event as OrganizationEvent),
      (state) => decideOrganization(state, command),
      (events) => (events as OrganizationEvent[]).some(changesSpendingRules) ? orgId : undefined,
      actor,
    );
  }

  private async onKey(keyId: string, decide: (key: KeyState, organization: OrganizationState) => KeyDecision, actor: string) {
    let organization: OrganizationState | undefined;
    return this.run(
      keyStreamId(keyId),
      initialKeyState,
      (state, event) => evolveKey(state, event as KeyEvent),
      async (key) => {
        organization ??= key.exists ? await this.loadOrganization(key.orgId) : undefined;
        return decide(key, organization ?? initialOrganizationState);
      },
      // every change of an existing key binds spending: its status, limits, models or expiry
      (events, state) => (events.some((event) => (event as KeyEvent).type !== 'KeyIssued') ? state.orgId : undefined),
      actor,
    );
  }

  private async load<S>(streamId: string, initial: S, evolve: (state: S, event: { type: string; data: unknown }) => S) {
    const events = await this.store.readStream(streamId);
    const state = events.reduce((folded, event) => evolve(folded, decodeAccessEvent(event)), initial);
    const revision = events.length === 0 ? ('no_stream' as const) : events[events.length - 1]!.revision;
    return { state, revision };
  }

  private async run<S, E extends { type: string; data: unknown }>(
    streamId: string,
    initial: S,
    evolve: (state: S, event: { type: string; data: unknown }) => S,
    decide: (state: S) => Decision<E> | Promise<Decision<E>>,
    fenceOrgOf: (events: E[], state: S) => string | undefined,
    actor: string,
  ): Promise<{ state: S; events: E[] }> {
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = await this.load(streamId, initial, evolve);
      const decision = await decide(state);
      // The deciders return their refusals; here they become the error the admin API and CLI report.
      if ('rejection' in decision) throw decision.rejection;
      const { events } = decision;
      if (events.length === 0) return { state, events };
      const occurredAt = this.clock.now().toISOString();
      try {
        const result = await this.store.append(
          streamId,
          events.map((event) => accessEventCatalogue.create(event.type, { id: randomUUID(), data: event.data, occurredAt, causedBy: `admin:${actor}` })),
          { expectedRevision: revision },
        );
        const after = events.reduce(evolve, state);
        const fencedOrg = fenceOrgOf(events, after);
        if (fencedOrg) {
          await this.accounts.execute(fencedOrg, { type: 'FenceAccessRules', stream: streamId, revision: result.nextExpectedRevision }, `admin:${actor}`);
        }
        await this.directory.refresh([streamId]);
        return { state: after, events };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= 5) throw error;
      }
    }
  }
}
