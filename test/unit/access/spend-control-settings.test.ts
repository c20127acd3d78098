import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { decodeAccessEvent, accessEventCatalogue } from '../../../src/access/access-event-catalogue.js';
import { NO_BUDGET_ALERTS, NO_LIMITS, type OrganizationEvent } from '../../../src/access/access-events.js';
import { changesSpendingRules, decideOrganization, evolveOrganization, initialOrganizationState, type OrganizationDecision } from '../../../src/access/organization-decider.js';
import type { GlobalPosition, RecordedEvent } from '../../../src/eventstore/event-store.js';

/**
 * The spend controls stored on the access streams: the key's concurrency and cost caps (version 2 of
 * `KeyIssued` and `KeyChanged`), the organization's concurrency cap (version 2 of `OrganizationChanged`),
 * its budget alerts and its alert webhook; what older versions read as, and what the decider refuses.
 */
function recorded(type: string, data: unknown, schemaVersion: number): RecordedEvent {
  return {
    id: randomUUID(),
    type,
    data,
    metadata: { schemaVersion, occurredAt: '2026-11-21T10:00:00.000Z', causedBy: 'admin:test' },
    streamId: 'key-key_1',
    revision: 0n,
    position: 'p' as GlobalPosition,
    recordedAt: new Date(),
  };
}

const issuedV1 = {
  keyId: 'key_1',
  orgId: 'org_1',
  name: null,
  employeeId: null,
  secretHash: 'a'.repeat(64),
  secretHint: 'sk-gw-…abcd',
  models: null,
  limits: { overall: NO_LIMITS, byType: {}, byModel: {} },
  rpm: 120,
  tpm: 200_000,
  expiresAt: null,
};

describe('spend control settings on the access streams', () => {
  it('reads a key issued before the spend controls (KeyIssued v1) as one without caps', () => {
    expect(decodeAccessEvent(recorded('KeyIssued', issuedV1, 1)).data).to.deep.include({ maxConcurrentRequests: null, maxCostPerRequest: null });
  });

  it('writes version 2 with the caps, and refuses them under version 1', () => {
    const event = accessEventCatalogue.create('KeyChanged', {
      id: randomUUID(),
      data: { maxConcurrentRequests: 5, maxCostPerRequest: '50000000' },
      occurredAt: '2026-11-21T10:00:00.000Z',
      causedBy: 'admin:test',
    });
    expect(event.metadata.schemaVersion).to.equal(2);
    expect(decodeAccessEvent(recorded('KeyChanged', event.data, 2)).data).to.deep.equal({ maxConcurrentRequests: 5, maxCostPerRequest: '50000000' });
    expect(() => decodeAccessEvent(recorded('KeyChanged', { maxConcurrentRequests: 5 }, 1))).to.throw(/KeyChanged v1/);
    expect(decodeAccessEvent(recorded('KeyChanged', { rpm: 3 }, 1)).data).to.deep.equal({ rpm: 3 });
  });

  it('refuses a concurrency cap below one and a cost cap that is not nanodollars', () => {
    const create = (data: unknown) => () => accessEventCatalogue.create('KeyChanged', { id: randomUUID(), data, occurredAt: '2026-11-21T10:00:00.000Z', causedBy: 'admin:test' });
    expect(create({ maxConcurrentRequests: 0 })).to.throw(/maxConcurrentRequests/);
    expect(create({ maxCostPerRequest: '0.05' })).to.throw(/maxCostPerRequest/);
  });

  it('reads OrganizationChanged v1 as changing no concurrency cap', () => {
    expect(decodeAccessEvent(recorded('OrganizationChanged', { status: 'blocked' }, 1)).data).to.deep.equal({ status: 'blocked' });
  });

  describe('organization decider', () => {
    const created = evolveOrganization(initialOrganizationState, {
      type: 'OrganizationCreated',
      data: { orgId: 'org_1', name: 'Acme', piiMasking: false, spendLimits: NO_LIMITS },
    });
    const org = evolveOrganization(created, { type: 'TeamCreated', data: { teamId: 'team_1', name: 'Data', spendLimits: NO_LIMITS } });
    const eventsOf = (decision: OrganizationDecision) => ('events' in decision ? decision.events : expect.fail(decision.rejection.message));
    const refusalOf = (decision: OrganizationDecision) => ('rejection' in decision ? decision.rejection : expect.fail('not refused'));

    it('starts without a concurrency cap, budget alerts or webhook', () => {
      expect(org).to.deep.include({ maxConcurrentRequests: null, budgetAlerts: NO_BUDGET_ALERTS, webhook: null });
    });

    it('changes the concurrency cap, which binds spending, and not when it is the same', () => {
      const [event] = eventsOf(decideOrganization(org, { type: 'ChangeOrganization', maxConcurrentRequests: 8 }));
      expect(event).to.deep.equal({ type: 'OrganizationChanged', data: { maxConcurrentRequests: 8 } });
      expect(changesSpendingRules(event!)).to.equal(true);
      const capped = evolveOrganization(org, event!);
      expect(capped.maxConcurrentRequests).to.equal(8);
      expect(eventsOf(decideOrganization(capped, { type: 'ChangeOrganization', maxConcurrentRequests: 8 }))).to.deep.equal([]);
      expect(evolveOrganization(capped, { type: 'OrganizationChanged', data: { piiMasking: true } }).maxConcurrentRequests, 'kept when not named').to.equal(8);
      expect(evolveOrganization(capped, { type: 'OrganizationChanged', data: { maxConcurrentRequests: null } }).maxConcurrentRequests, 'removed').to.equal(null);
    });

    it('sets budget alerts naming its own teams, and refuses a team of another or an organization rule with an id', () => {
      const rules = { limitPercentages: [{ scope: 'organization' as const, id: null, percents: [80] }, { scope: 'team' as const, id: 'team_1', percents: [50, 100] }], lowBalance: '5000000000' };
      const [event] = eventsOf(decideOrganization(org, { type: 'SetBudgetAlerts', rules }));
      expect(evolveOrganization(org, event as OrganizationEvent).budgetAlerts).to.deep.equal(rules);
      expect(changesSpendingRules(event!), 'alerts spend nothing').to.equal(false);
      const otherTeam = { limitPercentages: [{ scope: 'team' as const, id: 'team_9', percents: [50] }], lowBalance: null };
      expect(refusalOf(decideOrganization(org, { type: 'SetBudgetAlerts', rules: otherTeam }))).to.include({ code: 'invalid_request', param: 'limit_percentages' });
      const named = { limitPercentages: [{ scope: 'organization' as const, id: 'org_1', percents: [50] }], lowBalance: null };
      expect(refusalOf(decideOrganization(org, { type: 'SetBudgetAlerts', rules: named })).message).to.equal('a rule of the organization names no id');
      const twice = { limitPercentages: [{ scope: 'key' as const, id: null, percents: [50] }, { scope: 'key' as const, id: null, percents: [80] }], lowBalance: null };
      expect(refusalOf(decideOrganization(org, { type: 'SetBudgetAlerts', rules: twice })).message).to.equal('two rules for every key: give each scope and id one rule');
    });

    it('sets and removes the alert webhook', () => {
      const webhook = { url: 'https://hooks.example.com/gateway', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };
      const [set] = eventsOf(decideOrganization(org, { type: 'SetAlertWebhook', webhook }));
      const withHook = evolveOrganization(org, set!);
      expect(withHook.webhook).to.deep.equal(webhook);
      const [removed] = eventsOf(decideOrganization(withHook, { type: 'SetAlertWebhook', webhook: null }));
      expect(evolveOrganization(withHook, removed!).webhook).to.equal(null);
    });
  });
});
