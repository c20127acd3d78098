import { GatewayError } from '../errors/gateway-error.js';
import { NO_BUDGET_ALERTS, type AlertWebhook, type BudgetAlertRules, type LimitPair, type OrganizationEvent, type OrganizationStatus } from './access-events.js';

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
  /** The most requests of all its keys open at once; null: no cap. */
  readonly maxConcurrentRequests: number | null;
  readonly budgetAlerts: BudgetAlertRules;
  readonly webhook: AlertWebhook | null;
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
  maxConcurrentRequests: null,
  budgetAlerts: NO_BUDGET_ALERTS,
  webhook: null,
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
        maxConcurrentRequests: event.data.maxConcurrentRequests !== undefined ? event.data.maxConcurrentRequests : state.maxConcurrentRequests,
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
    case 'BudgetAlertsChanged':
      return { ...state, budgetAlerts: event.data };
    case 'AlertWebhookChanged':
      return { ...state, webhook: event.data.webhook };
  }
}

export type OrganizationCommand =
  | { type: 'CreateOrganization'; orgId: string; name: string; piiMasking: boolean; spendLimits: LimitPair }
  | { type: 'ChangeOrganization'; status?: OrganizationStatus; piiMasking?: boolean; spendLimits?: LimitPair; maxConcurrentRequests?: number | null }
  | { type: 'CreateTeam'; teamId: string; name: string; spendLimits: LimitPair }
  | { type: 'CreateEmployee'; employeeId: string; name: string; teamId: string | null; spendLimits: LimitPair }
  | { type: 'CreateSpace'; spaceId: string; name: string }
  | { type: 'SetBudgetAlerts'; rules: BudgetAlertRules }
  | { type: 'SetAlertWebhook'; webhook: AlertWebhook | null };

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
      if (command.maxConcurrentRequests !== undefined && command.maxConcurrentRequests !== state.maxConcurrentRequests) data.maxConcurrentRequests = command.maxConcurrentRequests;
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
    case 'SetBudgetAlerts': {
      // teams and employees are the organization's own; keys are checked by the caller, which knows them
      const named = new Set<string>();
      for (const rule of command.rules.limitPercentages) {
        const name = `${rule.scope}:${rule.id ?? '*'}`;
        if (named.has(name)) return reject('invalid_request', `two rules for ${rule.id ?? `every ${rule.scope}`}: give each scope and id one rule`, 'limit_percentages');
        named.add(name);
        const members = rule.scope === 'team' ? state.teams : rule.scope === 'employee' ? state.employees : undefined;
        if (rule.id !== null && members && !members.has(rule.id)) return reject('invalid_request', `${rule.id} is not a ${rule.scope} of this organization`, 'limit_percentages');
        if (rule.scope === 'organization' && rule.id !== null) return reject('invalid_request', 'a rule of the organization names no id', 'limit_percentages');
      }
      return { events: [{ type: 'BudgetAlertsChanged', data: command.rules }] };
    }
    case 'SetAlertWebhook': {
      const same = command.webhook?.url === state.webhook?.url && command.webhook?.secret === state.webhook?.secret;
      return { events: same ? [] : [{ type: 'AlertWebhookChanged', data: { webhook: command.webhook } }] };
    }
  }
}

function reject(code: 'invalid_request' | 'resource_not_found', message: string, param?: string): OrganizationDecision {
  return { rejection: new GatewayError(code, message, param === undefined ? {} : { param }) };
}

/** Whether a change alters what the organization may spend (and so must fence the account stream). */
export function changesSpendingRules(event: OrganizationEvent): boolean {
  return event.type === 'OrganizationChanged' && (event.data.status !== undefined || event.data.spendLimits !== undefined || event.data.maxConcurrentRequests !== undefined);
}

function sameLimits(a: LimitPair, b: LimitPair): boolean {
  return a.daily === b.daily && a.monthly === b.monthly;
}
