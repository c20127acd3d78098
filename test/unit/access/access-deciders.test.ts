import { expect } from 'chai';
import type { KeyEvent, OrganizationEvent } from '../../../src/access/access-events.js';
import { decideKey, evolveKey, initialKeyState, type KeyCommand } from '../../../src/access/key-decider.js';
import { hashKeySecret, newKeySecret, secretHint } from '../../../src/access/key-secret.js';
import {
  changesSpendingRules,
  decideOrganization,
  evolveOrganization,
  initialOrganizationState,
  type OrganizationCommand,
} from '../../../src/access/organization-decider.js';

const noLimits = { daily: null, monthly: null };
const created: OrganizationEvent = { type: 'OrganizationCreated', data: { orgId: 'org_1', name: 'Acme', piiMasking: false, spendLimits: noLimits } };
const organization = (...events: OrganizationEvent[]) => events.reduce(evolveOrganization, initialOrganizationState);
type Decision = { readonly events: readonly unknown[] } | { readonly rejection: { code: string; message: string; param?: string } };
const rejectionOf = (decision: Decision) => {
  expect(decision, 'expected a rejection').to.have.property('rejection');
  return (decision as Extract<Decision, { rejection: unknown }>).rejection;
};
const eventsOf = <E>(decision: { readonly events: E[] } | { readonly rejection: unknown }): E[] => {
  expect(decision, 'expected events').to.have.property('events');
  return (decision as { events: E[] }).events;
};

describe('organization decider', () => {
  it('creates an organization once', () => {
    const command: OrganizationCommand = { type: 'CreateOrganization', orgId: 'org_1', name: 'Acme', piiMasking: false, spendLimits: noLimits };
    expect(eventsOf(decideOrganization(organization(), command))).to.deep.equal([created]);
    expect(rejectionOf(decideOrganization(organization(created), command)).code).to.equal('invalid_request');
  });

  it('refuses commands on an organization that does not exist', () => {
    expect(rejectionOf(decideOrganization(organization(), { type: 'CreateSpace', spaceId: 'spc_1', name: 'x' })).code).to.equal('resource_not_found');
  });

  it('records only what changes, and tells which changes bind spending', () => {
    const state = organization(created);
    expect(eventsOf(decideOrganization(state, { type: 'ChangeOrganization', piiMasking: false }))).to.deep.equal([]);
    const [blocked] = eventsOf(decideOrganization(state, { type: 'ChangeOrganization', status: 'blocked', piiMasking: true }));
    expect(blocked).to.deep.equal({ type: 'OrganizationChanged', data: { status: 'blocked', piiMasking: true } });
    expect(changesSpendingRules(blocked!)).to.equal(true);
    expect(changesSpendingRules({ type: 'OrganizationChanged', data: { piiMasking: true } })).to.equal(false);
  });

  it('puts an employee only in a team of the organization', () => {
    const state = organization(created, { type: 'TeamCreated', data: { teamId: 'team_1', name: 'Core', spendLimits: noLimits } });
    expect(eventsOf(decideOrganization(state, { type: 'CreateEmployee', employeeId: 'emp_1', name: 'Ada', teamId: 'team_1', spendLimits: noLimits }))).to.have.length(1);
    const error = rejectionOf(decideOrganization(state, { type: 'CreateEmployee', employeeId: 'emp_2', name: 'Bob', teamId: 'team_x', spendLimits: noLimits }));
    expect(error).to.include({ code: 'invalid_request', param: 'team_id' });
  });
});

describe('key decider', () => {
  const org = organization(created, { type: 'EmployeeCreated', data: { employeeId: 'emp_1', name: 'Ada', teamId: null, spendLimits: noLimits } });
  const issue: KeyCommand = {
    type: 'IssueKey',
    keyId: 'key_1',
    name: 'ci',
    employeeId: 'emp_1',
    secretHash: 'h',
    secretHint: 'sk-gw-…abcd',
    models: null,
    limits: { overall: noLimits, byType: {}, byModel: {} },
    rpm: 120,
    tpm: 200_000,
    expiresAt: null,
    maxConcurrentRequests: null,
    maxCostPerRequest: null,
  };
  const issued = () => evolveKey(initialKeyState, eventsOf(decideKey(initialKeyState, issue, org))[0]!);

  it('issues a key for an employee of the organization', () => {
    const [event] = eventsOf(decideKey(initialKeyState, issue, org));
    expect(event).to.deep.include({ type: 'KeyIssued' });
    expect((event as Extract<KeyEvent, { type: 'KeyIssued' }>).data).to.include({ keyId: 'key_1', orgId: 'org_1', employeeId: 'emp_1' });
  });

  it('refuses an employee from elsewhere', () => {
    expect(rejectionOf(decideKey(initialKeyState, { ...issue, employeeId: 'emp_x' } as KeyCommand, org))).to.include({ code: 'invalid_request', param: 'employee_id' });
  });

  it('changes a valid key, and refuses changes to a revoked one', () => {
    const key = issued();
    expect(eventsOf(decideKey(key, { type: 'ChangeKey', changes: { rpm: 10 } }, org))).to.deep.equal([{ type: 'KeyChanged', data: { rpm: 10 } }]);
    const revoked = evolveKey(key, { type: 'KeyRevoked', data: {} });
    expect(rejectionOf(decideKey(revoked, { type: 'ChangeKey', changes: { rpm: 10 } }, org)).code).to.equal('invalid_request');
  });

  it('revokes once', () => {
    const revoked = evolveKey(issued(), { type: 'KeyRevoked', data: {} });
    expect(eventsOf(decideKey(issued(), { type: 'RevokeKey' }, org))).to.deep.equal([{ type: 'KeyRevoked', data: {} }]);
    expect(eventsOf(decideKey(revoked, { type: 'RevokeKey' }, org))).to.deep.equal([]);
  });
});

describe('key secrets', () => {
  it('are sk-gw- and 43 base62 characters, distinct every time', () => {
    const secrets = new Set(Array.from({ length: 100 }, newKeySecret));
    expect(secrets.size).to.equal(100);
    for (const secret of secrets) expect(secret).to.match(/^sk-gw-[0-9A-Za-z]{43}$/);
  });
  it('are stored only as a SHA-256 hash and shown as a hint', () => {
    const secret = newKeySecret();
    expect(hashKeySecret(secret)).to.match(/^[0-9a-f]{64}$/).and.not.to.contain(secret.slice(6));
    expect(secretHint(secret)).to.equal(`sk-gw-…${secret.slice(-4)}`);
  });
});
