import { expect } from 'chai';
import type { LimitPair, OrganizationEvent } from '../../../src/access/access-events.js';
import {
  changesSpendingRules,
  decideOrganization,
  evolveOrganization,
  initialOrganizationState,
  type OrganizationCommand,
  type OrganizationDecision,
} from '../../../src/access/organization-decider.js';

/**
 * The organization decider's rules with exact inputs and outputs: which changes are recorded (a limit
 * pair differing in one half only is a change), each refusal, each event's fields, the state each event
 * leaves, and which changes bind spending (and so fence the account stream).
 */
const limits = (daily: string | null, monthly: string | null): LimitPair => ({ daily, monthly });
const created: OrganizationEvent = { type: 'OrganizationCreated', data: { orgId: 'org_1', name: 'Acme', piiMasking: false, spendLimits: limits('100', '1000') } };
const state = (...more: OrganizationEvent[]) => [created, ...more].reduce(evolveOrganization, initialOrganizationState);

function events(decision: OrganizationDecision): OrganizationEvent[] {
  if (!('events' in decision)) throw new Error(`expected events, got ${decision.rejection.message}`);
  return decision.events;
}
function rejection(decision: OrganizationDecision) {
  if (!('rejection' in decision)) throw new Error(`expected a rejection, got ${JSON.stringify(decision)}`);
  const { code, message, param, status } = decision.rejection;
  return { code, message, param, status };
}
const change = (command: Omit<Extract<OrganizationCommand, { type: 'ChangeOrganization' }>, 'type'>) =>
  events(decideOrganization(state(), { type: 'ChangeOrganization', ...command }));

describe('organization decider: exact decisions', () => {
  it('refuses to create an organization twice, naming it', () => {
    const command: OrganizationCommand = { type: 'CreateOrganization', orgId: 'org_1', name: 'Again', piiMasking: true, spendLimits: limits(null, null) };
    expect(rejection(decideOrganization(state(), command))).to.deep.equal({
      code: 'invalid_request',
      message: 'organization org_1 already exists',
      param: undefined,
      status: 400,
    });
  });

  it('refuses every other command on an organization that does not exist', () => {
    const notFound = { code: 'resource_not_found', message: 'no such organization', param: undefined, status: 404 };
    const commands: OrganizationCommand[] = [
      { type: 'ChangeOrganization', status: 'blocked' },
      { type: 'CreateTeam', teamId: 'team_1', name: 'Core', spendLimits: limits(null, null) },
      { type: 'CreateEmployee', employeeId: 'emp_1', name: 'Ada', teamId: null, spendLimits: limits(null, null) },
    ];
    for (const command of commands) expect(rejection(decideOrganization(initialOrganizationState, command)), command.type).to.deep.equal(notFound);
  });

  it('records a status, a PII flag or limits only when they differ from the current ones', () => {
    expect(change({ status: 'active', piiMasking: false, spendLimits: limits('100', '1000') })).to.deep.equal([]);
    expect(change({ status: 'blocked' })).to.deep.equal([{ type: 'OrganizationChanged', data: { status: 'blocked' } }]);
    expect(change({ piiMasking: true })).to.deep.equal([{ type: 'OrganizationChanged', data: { piiMasking: true } }]);
  });

  it('counts limits as changed when only the daily or only the monthly half differs', () => {
    expect(change({ spendLimits: limits('101', '1000') })).to.deep.equal([{ type: 'OrganizationChanged', data: { spendLimits: limits('101', '1000') } }]);
    expect(change({ spendLimits: limits('100', null) })).to.deep.equal([{ type: 'OrganizationChanged', data: { spendLimits: limits('100', null) } }]);
  });

  it('creates a team, an employee without a team or in a team, and a space with exactly their fields', () => {
    const team = { teamId: 'team_1', name: 'Core', spendLimits: limits('5', null) };
    expect(events(decideOrganization(state(), { type: 'CreateTeam', ...team }))).to.deep.equal([{ type: 'TeamCreated', data: team }]);
    const loner = { employeeId: 'emp_1', name: 'Ada', teamId: null, spendLimits: limits(null, '9') };
    expect(events(decideOrganization(state(), { type: 'CreateEmployee', ...loner }))).to.deep.equal([{ type: 'EmployeeCreated', data: loner }]);
    const member = { employeeId: 'emp_2', name: 'Bob', teamId: 'team_1', spendLimits: limits(null, null) };
    const withTeam = state({ type: 'TeamCreated', data: team });
    expect(events(decideOrganization(withTeam, { type: 'CreateEmployee', ...member }))).to.deep.equal([{ type: 'EmployeeCreated', data: member }]);
    expect(events(decideOrganization(state(), { type: 'CreateSpace', spaceId: 'spc_1', name: 'Lab' }))).to.deep.equal([
      { type: 'SpaceCreated', data: { spaceId: 'spc_1', name: 'Lab' } },
    ]);
  });

  it('refuses an employee in a team of another organization with the field at fault', () => {
    const command: OrganizationCommand = { type: 'CreateEmployee', employeeId: 'emp_1', name: 'Ada', teamId: 'team_x', spendLimits: limits(null, null) };
    expect(rejection(decideOrganization(state(), command))).to.deep.equal({
      code: 'invalid_request',
      message: 'team_id team_x is not a team of this organization',
      param: 'team_id',
      status: 400,
    });
  });
});

describe('organization state', () => {
  it('is created active with the given name, PII flag and limits', () => {
    const org = [{ ...created, data: { ...created.data, piiMasking: true } } as OrganizationEvent].reduce(evolveOrganization, initialOrganizationState);
    expect(org).to.deep.include({ exists: true, orgId: 'org_1', name: 'Acme', status: 'active', piiMasking: true, spendLimits: limits('100', '1000') });
  });

  it('keeps what a change does not name', () => {
    const blocked = state({ type: 'OrganizationChanged', data: { status: 'blocked' } });
    expect(blocked).to.deep.include({ status: 'blocked', piiMasking: false, spendLimits: limits('100', '1000') });
    const masked = state({ type: 'OrganizationChanged', data: { status: 'blocked' } }, { type: 'OrganizationChanged', data: { piiMasking: true } });
    expect(masked).to.deep.include({ status: 'blocked', piiMasking: true, spendLimits: limits('100', '1000') });
    const limited = state({ type: 'OrganizationChanged', data: { spendLimits: limits(null, '7') } });
    expect(limited).to.deep.include({ status: 'active', piiMasking: false, spendLimits: limits(null, '7') });
  });

  it('adds teams, employees and spaces to what it had', () => {
    const org = state(
      { type: 'TeamCreated', data: { teamId: 'team_1', name: 'Core', spendLimits: limits('5', null) } },
      { type: 'TeamCreated', data: { teamId: 'team_2', name: 'Ops', spendLimits: limits(null, null) } },
      { type: 'EmployeeCreated', data: { employeeId: 'emp_1', name: 'Ada', teamId: 'team_1', spendLimits: limits(null, '9') } },
      { type: 'SpaceCreated', data: { spaceId: 'spc_1', name: 'Lab' } },
    );
    expect([...org.teams]).to.deep.equal([
      ['team_1', { name: 'Core', spendLimits: limits('5', null) }],
      ['team_2', { name: 'Ops', spendLimits: limits(null, null) }],
    ]);
    expect([...org.employees]).to.deep.equal([['emp_1', { name: 'Ada', teamId: 'team_1', spendLimits: limits(null, '9') }]]);
    expect([...org.spaces]).to.deep.equal([['spc_1', { name: 'Lab' }]]);
    // the initial state's maps are shared by every new organization and must stay empty
    expect(initialOrganizationState.teams.size + initialOrganizationState.employees.size + initialOrganizationState.spaces.size).to.equal(0);
  });
});

describe('changes that bind spending', () => {
  it('are a new status or new limits, not a PII flag nor new teams, employees or spaces', () => {
    expect(changesSpendingRules({ type: 'OrganizationChanged', data: { status: 'active' } })).to.equal(true);
    expect(changesSpendingRules({ type: 'OrganizationChanged', data: { spendLimits: limits(null, null) } })).to.equal(true);
    expect(changesSpendingRules({ type: 'OrganizationChanged', data: { piiMasking: false } })).to.equal(false);
    expect(changesSpendingRules({ type: 'OrganizationChanged', data: {} })).to.equal(false);
    expect(changesSpendingRules({ type: 'TeamCreated', data: { teamId: 't', name: 'n', spendLimits: limits('1', null) } })).to.equal(false);
    expect(changesSpendingRules(created)).to.equal(false);
  });
});
