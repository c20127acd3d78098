import type { KeyLimits, LimitPair } from '../access/access-events.js';
import { keyStatus, type KeyState } from '../access/key-decider.js';
import type { OrganizationState } from '../access/organization-decider.js';
import { formatUsd, parseUsd } from '../billing/money.js';
import type { KeyLimitsBody, LimitPairBody } from './admin-schemas.js';

/** Conversions between admin JSON (USD strings, snake_case) and the access records (nanodollar strings). */
const toNanos = (value: string | null | undefined) => (value === undefined || value === null ? null : String(parseUsd(value)));
const toUsd = (value: string | null) => (value === null ? null : formatUsd(BigInt(value)));

export function limitPairFromBody(body: LimitPairBody | undefined, previous?: LimitPair): LimitPair {
  return {
    daily: body?.daily_usd !== undefined ? toNanos(body.daily_usd) : previous?.daily ?? null,
    monthly: body?.monthly_usd !== undefined ? toNanos(body.monthly_usd) : previous?.monthly ?? null,
  };
}

export function renderLimitPair(limits: LimitPair) {
  return { daily_usd: toUsd(limits.daily), monthly_usd: toUsd(limits.monthly) };
}

export function keyLimitsFromBody(body: KeyLimitsBody | undefined): KeyLimits {
  const byType: KeyLimits['byType'] = {};
  for (const [category, pair] of Object.entries(body?.by_type ?? {})) byType[category as keyof KeyLimits['byType']] = limitPairFromBody(pair);
  const byModel: KeyLimits['byModel'] = {};
  for (const [model, pair] of Object.entries(body?.by_model ?? {})) byModel[model] = limitPairFromBody(pair);
  return { overall: limitPairFromBody(body), byType, byModel };
}

export function renderKeyLimits(limits: KeyLimits) {
  return {
    ...renderLimitPair(limits.overall),
    by_type: Object.fromEntries(Object.entries(limits.byType).map(([category, pair]) => [category, renderLimitPair(pair)])),
    by_model: Object.fromEntries(Object.entries(limits.byModel).map(([model, pair]) => [model, renderLimitPair(pair)])),
  };
}

export function renderKey(key: KeyState, now: Date) {
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
    status: keyStatus(key, now),
  };
}

export function renderOrganization(organization: OrganizationState, money: { balance: bigint; reserved: bigint }) {
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
