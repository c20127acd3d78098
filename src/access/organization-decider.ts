import { GatewayError } from '../errors/gateway-error.js';
import type { LimitPair, OrganizationEvent, OrganizationStatus } from './access-events.js';

/** The state of one `org-<orgId>` stream, and its pure decider. */
export interface OrganizationState {
  readonly exists: boolean;
  readonly orgId: string;
  readonly name: string;
  readonly status: OrganizationStatus;
  readonly piiMasking: boolean;
  readonly spendLimits: LimitPair;
  readonly teams: ReadonlyMap<string, { name: string; spendLimits: LimitPair }>;
  readonly employees: ReadonlyMap<string, { name: string; teamId: string | null; spendLimits: LimitPair }>;
  readonly spaces: ReadonlyMap<string, { name: string }>;
}

export const initialOrganizationState: OrganizationState = {
  exists: false,
  orgId: '',
  name: '',
  status: 'active',
  piiMasking: false,
  spendLimits: { daily: null, monthly: null },
  teams: new Map(),
  employees: new Map(),
  spaces: new Map(),
};

export function evolveOrganization(state: OrganizationState, event: OrganizationEvent): OrganizationState {
  switch (event.type) {
    case 'OrganizationCreated':
      return { ...state, exists: true, orgId: event.data.orgId, name: event.data.name, piiMasking: event.data.piiMasking, spendLimits: event.data.spendLimits };
    case 'OrganizationChanged':
      return {
        ...state,
        status: event.data.status ?? state.status,
        piiMasking: event.data.piiMasking ?? state.piiMasking,
        spendLimits: event.data.spendLimits ?? state.spendLimits,
      };
    case 'TeamCreated':
      return { ...state, teams: new Map(state.teams).set(event.data.teamId, { name: event.data.name, spendLimits: event.data.spendLimits }) };
    case 'EmployeeCreated':
      return {
        ...state,
        employees: new Map(state.employees).set(event.data.employeeId, {
          name: event.data.name,
          teamId: event.data.teamId,
          spendLimits: event.data.spendLimits,
        }),
      };
    case 'SpaceCreated':
      return { ...state, spaces: new Map(state.spaces).set(event.data.spaceId, { name: event.data.name }) };
  }
}

export type OrganizationCommand =
  | { type: 'CreateOrganization'; orgId: string; name: string; piiMasking: boolean; spendLimits: LimitPair }
  | { type: 'ChangeOrganization'; status?: OrganizationStatus; piiMasking?: boolean; spendLimits?: LimitPair }
  | { type: 'CreateTeam'; teamId: string; name: string; spendLimits: LimitPair }
  | { type: 'CreateEmployee'; employeeId: string; name: string; teamId: string | null; spendLimits: LimitPair }
  | { type: 'CreateSpace'; spaceId: string; name: string };

/** The events a command leads to, or why it is refused (the command layer throws the refusal). */
export type OrganizationDecision = { readonly events: OrganizationEvent[] } | { readonly rejection: GatewayError };

export function decideOrganization(state: OrganizationState, command: OrganizationCommand): OrganizationDecision {
  if (command.type === 'CreateOrganization') {
    if (state.exists) return reject('invalid_request', `organization ${command.orgId} already exists`);
    const { orgId, name, piiMasking, spendLimits } = command;
    return { events: [{ type: 'OrganizationCreated', data: { orgId, name, piiMasking, spendLimits } }] };
  }
  if (!state.exists) return reject('resource_not_found', 'no such organization');
  switch (command.type) {
    case 'ChangeOrganization': {
      const data: Extract<OrganizationEvent, { type: 'OrganizationChanged' }>['data'] = {};
      if (command.status !== undefined && command.status !== state.status) data.status = command.status;
      if (command.piiMasking !== undefined && command.piiMasking !== state.piiMasking) data.piiMasking = command.piiMasking;
      if (command.spendLimits !== undefined && !sameLimits(command.spendLimits, state.spendLimits)) data.spendLimits = command.spendLimits;
      return { events: Object.keys(data).length === 0 ? [] : [{ type: 'OrganizationChanged', data }] };
    }
    case 'CreateTeam':
      return { events: [{ type: 'TeamCreated', data: { teamId: command.teamId, name: command.name, spendLimits: command.spendLimits } }] };
    case 'CreateEmployee':
      if (command.teamId !== null && !state.teams.has(command.teamId)) {
        return reject('invalid_request', `team_id ${command.teamId} is not a team of this organization`, 'team_id');
      }
      return {
        events: [
          { type: 'EmployeeCreated', data: { employeeId: command.employeeId, name: command.name, teamId: command.teamId, spendLimits: command.spendLimits } },
        ],
      };
    case 'CreateSpace':
      return { events: [{ type: 'SpaceCreated', data: { spaceId: command.spaceId, name: command.name } }] };
  }
}

function reject(code: 'invalid_request' | 'resource_not_found', message: string, param?: string): OrganizationDecision {
  return { rejection: new GatewayError(code, message, param === undefined ? {} : { param }) };
}

/** Whether a change alters what the organization may spend (and so must fence the account stream). */
export function changesSpendingRules(event: OrganizationEvent): boolean {
  return event.type === 'OrganizationChanged' && (event.data.status !== undefined || event.data.spendLimits !== undefined);
}

function sameLimits(a: LimitPair, b: LimitPair): boolean {
  return a.daily === b.daily && a.monthly === b.monthly;
}
