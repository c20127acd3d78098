import { expect } from 'chai';
import type { KeyEvent, KeySettings, OrganizationEvent } from '../../../src/access/access-events.js';
import { decideKey, evolveKey, initialKeyState, keyStatus, type KeyCommand, type KeyDecision, type KeyState } from '../../../src/access/key-decider.js';
import { evolveOrganization, initialOrganizationState } from '../../../src/access/organization-decider.js';

/**
 * The key decider's rules with exact inputs and outputs: each refusal's code, message and field, each
 * event as it is stored, and the key's status at the exact millisecond it expires. The existing
 * access-deciders test covers the happy paths; this one pins every branch so a changed rule fails here.
 */
const noLimits = { daily: null, monthly: null };
const orgEvents: OrganizationEvent[] = [
  { type: 'OrganizationCreated', data: { orgId: 'org_1', name: 'Acme', piiMasking: false, spendLimits: noLimits } },
  { type: 'EmployeeCreated', data: { employeeId: 'emp_1', name: 'Ada', teamId: null, spendLimits: noLimits } },
];
const org = orgEvents.reduce(evolveOrganization, initialOrganizationState);

const settings: KeySettings = {
  models: ['openai/gpt-4o-mini'],
  limits: { overall: { daily: '1000000000', monthly: null }, byType: { image: { daily: null, monthly: '5000000000' } }, byModel: {} },
  rpm: 60,
  tpm: 10_000,
  expiresAt: '2030-01-01T00:00:00.000Z',
  maxConcurrentRequests: 4,
  maxCostPerRequest: '50000000',
};
const issue = (employeeId: string | null = null): KeyCommand => ({
  type: 'IssueKey',
  keyId: 'key_1',
  name: 'ci',
  employeeId,
  secretHash: 'a'.repeat(64),
  secretHint: 'sk-gw-…abcd',
  ...settings,
});

function rejection(decision: KeyDecision) {
  if (!('rejection' in decision)) throw new Error(`expected a rejection, got ${JSON.stringify(decision)}`);
  const { code, message, param, status } = decision.rejection;
  return { code, message, param, status };
}
function events(decision: KeyDecision): KeyEvent[] {
  if (!('events' in decision)) throw new Error(`expected events, got ${decision.rejection.message}`);
  return decision.events;
}
const issuedKey = (): KeyState => events(decideKey(initialKeyState, issue(), org)).reduce(evolveKey, initialKeyState);

describe('key decider: exact decisions', () => {
  it('issues a key whose event carries every setting and the organization of the issuing org, not of the command', () => {
    expect(events(decideKey(initialKeyState, issue('emp_1'), org))).to.deep.equal([
      {
        type: 'KeyIssued',
        data: { keyId: 'key_1', name: 'ci', employeeId: 'emp_1', secretHash: 'a'.repeat(64), secretHint: 'sk-gw-…abcd', ...settings, orgId: 'org_1' },
      },
    ]);
  });

  it('issues a key with no employee (null is not looked up among the employees)', () => {
    expect(events(decideKey(initialKeyState, issue(null), org))).to.have.length(1);
  });

  it('refuses to issue a key twice, naming the key', () => {
    expect(rejection(decideKey(issuedKey(), issue(), org))).to.deep.equal({ code: 'invalid_request', message: 'key key_1 already exists', param: undefined, status: 400 });
  });

  it('refuses to issue a key for an organization that does not exist', () => {
    expect(rejection(decideKey(initialKeyState, issue(), initialOrganizationState))).to.deep.equal({
      code: 'resource_not_found',
      message: 'no such organization',
      param: undefined,
      status: 404,
    });
  });

  it('refuses an employee of another organization, naming the field', () => {
    expect(rejection(decideKey(initialKeyState, issue('emp_9'), org))).to.deep.equal({
      code: 'invalid_request',
      message: 'employee_id emp_9 is not an employee of this organization',
      param: 'employee_id',
      status: 400,
    });
  });

  it('refuses to change or revoke a key that does not exist', () => {
    const notFound = { code: 'resource_not_found', message: 'no such key', param: undefined, status: 404 };
    expect(rejection(decideKey(initialKeyState, { type: 'ChangeKey', changes: { rpm: 5 } }, org))).to.deep.equal(notFound);
    expect(rejection(decideKey(initialKeyState, { type: 'RevokeKey' }, org))).to.deep.equal(notFound);
  });

  it('records a change as it was asked, and nothing for an empty change', () => {
    const changes = { models: null, limits: { overall: { daily: '1', monthly: '2' }, byType: {}, byModel: { 'p/m': { daily: '3', monthly: null } } } };
    expect(events(decideKey(issuedKey(), { type: 'ChangeKey', changes }, org))).to.deep.equal([{ type: 'KeyChanged', data: changes }]);
    expect(events(decideKey(issuedKey(), { type: 'ChangeKey', changes: {} }, org))).to.deep.equal([]);
  });

  it('refuses to change a revoked key with the reason', () => {
    const revoked = evolveKey(issuedKey(), { type: 'KeyRevoked', data: {} });
    expect(rejection(decideKey(revoked, { type: 'ChangeKey', changes: { rpm: 5 } }, org))).to.deep.equal({
      code: 'invalid_request',
      message: 'the key is revoked; issue a new one',
      param: undefined,
      status: 400,
    });
  });
});

describe('key state', () => {
  it('is the issued settings, existing and not revoked', () => {
    const key = issuedKey();
    expect(key).to.deep.include({ exists: true, revoked: false, keyId: 'key_1', orgId: 'org_1', rpm: 60, tpm: 10_000, models: ['openai/gpt-4o-mini'] });
  });

  it('takes only the changed settings and keeps the rest', () => {
    const key = evolveKey(issuedKey(), { type: 'KeyChanged', data: { rpm: 7, expiresAt: null } });
    expect(key).to.deep.include({ exists: true, rpm: 7, tpm: 10_000, expiresAt: null, models: ['openai/gpt-4o-mini'], limits: settings.limits });
  });

  it('is revoked for good after KeyRevoked, its settings kept', () => {
    const key = evolveKey(issuedKey(), { type: 'KeyRevoked', data: {} });
    expect(key).to.deep.include({ exists: true, revoked: true, rpm: 60 });
  });
});

describe('key status', () => {
  // expiresAt is stored as an ISO string; the key stops at that millisecond, not one after.
  const expiresAt = '2030-01-01T00:00:00.000Z';
  const key = { ...issuedKey(), expiresAt };

  it('is valid one millisecond before the expiry', () => {
    expect(keyStatus(key, new Date('2029-12-31T23:59:59.999Z'))).to.equal('valid');
  });

  it('is expired at the exact millisecond of the expiry, and after it', () => {
    expect(keyStatus(key, new Date(expiresAt))).to.equal('expired');
    expect(keyStatus(key, new Date('2030-01-01T00:00:00.001Z'))).to.equal('expired');
  });

  it('is valid forever without an expiry', () => {
    expect(keyStatus({ ...key, expiresAt: null }, new Date('2999-01-01T00:00:00.000Z'))).to.equal('valid');
  });

  it('is revoked, not expired, for a revoked key past its expiry, and revoked before it too', () => {
    const revoked = { ...key, revoked: true };
    expect(keyStatus(revoked, new Date('2031-01-01T00:00:00.000Z'))).to.equal('revoked');
    expect(keyStatus(revoked, new Date('2029-01-01T00:00:00.000Z'))).to.equal('revoked');
  });
});
