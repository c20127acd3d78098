import type { KeyLimits, LimitPair } from '../access/access-events.js';
import { keyStatus, type KeyState } from '../access/key-decider.js';
import type { OrganizationState } from '../access/organization-decider.js';
import type {
  EmployeeRecord,
  IssuedKeyRecord,
  KeyLimitsRecord,
  KeyRecord,
  LimitPairRecord,
  ListRecord,
  OrganizationRecord,
  SpaceRecord,
  TeamRecord,
} from '../admin-records.js';
import { formatUsd } from '../billing/money.js';

/**
 * The admin API's records (src/admin-records.ts) from the access records (nanodollar strings, camelCase):
 * one renderer per record, for the routes and for the admin CLI working on the database, so that both
 * print the same record.
 */
const toUsd = (value: string | null) => (value === null ? null : formatUsd(BigInt(value)));

export function renderLimitPair(limits: LimitPair): LimitPairRecord {
  return { daily_usd: toUsd(limits.daily), monthly_usd: toUsd(limits.monthly) };
}

export function renderKeyLimits(limits: KeyLimits): KeyLimitsRecord {
  return {
    ...renderLimitPair(limits.overall),
    by_type: Object.fromEntries(Object.entries(limits.byType).map(([category, pair]) => [category, renderLimitPair(pair)])),
    by_model: Object.fromEntries(Object.entries(limits.byModel).map(([model, pair]) => [model, renderLimitPair(pair)])),
  };
}

export function renderKey(key: KeyState, now: Date): KeyRecord {
  return {
    id: key.keyId,
    object: 'key',
    organization_id: key.orgId,
    name: key.name,
    employee_id: key.employeeId,
    secret_hint: key.secretHint,
    models: key.models,
    limits: renderKeyLimits(key.limits),
    rpm: key.rpm,
    tpm: key.tpm,
    expires_at: key.expiresAt,
    max_concurrent_requests: key.maxConcurrentRequests,
    max_cost_per_request_usd: toUsd(key.maxCostPerRequest),
    status: keyStatus(key, now),
  };
}

export function renderIssuedKey(key: KeyState, secret: string, now: Date): IssuedKeyRecord {
  return { ...renderKey(key, now), key: secret };
}

export function renderOrganization(organization: OrganizationState, money: { balance: bigint; reserved: bigint }): OrganizationRecord {
  return {
    id: organization.orgId,
    object: 'organization',
    name: organization.name,
    status: organization.status,
    pii_masking: organization.piiMasking,
    balance_usd: formatUsd(money.balance),
    reserved_usd: formatUsd(money.reserved),
    spend_limits: renderLimitPair(organization.spendLimits),
  };
}

export function renderTeam(orgId: string, teamId: string, team: { name: string; spendLimits: LimitPair }): TeamRecord {
  return { id: teamId, object: 'team', organization_id: orgId, name: team.name, spend_limits: renderLimitPair(team.spendLimits) };
}

export function renderEmployee(orgId: string, employeeId: string, employee: { name: string; teamId: string | null; spendLimits: LimitPair }): EmployeeRecord {
  return { id: employeeId, object: 'employee', organization_id: orgId, name: employee.name, team_id: employee.teamId, spend_limits: renderLimitPair(employee.spendLimits) };
}

export function renderSpace(orgId: string, spaceId: string, space: { name: string }): SpaceRecord {
  return { id: spaceId, object: 'space', organization_id: orgId, name: space.name };
}

export function renderList<T>(data: T[]): ListRecord<T> {
  return { object: 'list', data };
}
