import type { ModelCategory } from '../billing/categories.js';

/**
 * Events of the access streams: `org-<orgId>` (the organization, its teams, employees and spaces) and
 * `key-<keyId>` (one API key). Amounts are integer nanodollars as decimal strings; null = no limit.
 */
export interface LimitPair {
  daily: string | null;
  monthly: string | null;
}

export interface KeyLimits {
  overall: LimitPair;
  byType: Partial<Record<ModelCategory, LimitPair>>;
  byModel: Record<string, LimitPair>;
}

export type OrganizationStatus = 'active' | 'blocked';

/** Whose spend a budget alert watches: the organization, or every key, team or employee (`id` null) or one of them. */
export type BudgetScope = 'organization' | 'key' | 'team' | 'employee';

/**
 * The budget alerts of an organization (src/alerts): percentages of the daily and monthly spending limits of
 * the organization, its keys, teams and employees, and a low level of its prepaid balance (nanodollars).
 * A rule with an `id` replaces, for that one, the rule of its scope with none.
 */
export interface BudgetAlertRules {
  limitPercentages: Array<{ scope: BudgetScope; id: string | null; percents: number[] }>;
  lowBalance: string | null;
}

/** Where the organization's alerts are sent, and the Standard Webhooks secret (`whsec_…`) they are signed with. */
export interface AlertWebhook {
  url: string;
  secret: string;
}

export type OrganizationEvent =
  | { type: 'OrganizationCreated'; data: { orgId: string; name: string; piiMasking: boolean; spendLimits: LimitPair } }
  | { type: 'OrganizationChanged'; data: { status?: OrganizationStatus; piiMasking?: boolean; spendLimits?: LimitPair; maxConcurrentRequests?: number | null } }
  | { type: 'TeamCreated'; data: { teamId: string; name: string; spendLimits: LimitPair } }
  | { type: 'EmployeeCreated'; data: { employeeId: string; name: string; teamId: string | null; spendLimits: LimitPair } }
  | { type: 'SpaceCreated'; data: { spaceId: string; name: string } }
  | { type: 'BudgetAlertsChanged'; data: BudgetAlertRules }
  | { type: 'AlertWebhookChanged'; data: { webhook: AlertWebhook | null } };

export interface KeySettings {
  models: string[] | null;
  limits: KeyLimits;
  rpm: number;
  tpm: number;
  expiresAt: string | null;
  /** The most requests of the key open at once, from their reserve to their close; null: no cap. */
  maxConcurrentRequests: number | null;
  /** The cost cap of a request that sends no lower `X-Max-Cost-USD`, nanodollars; null: none. */
  maxCostPerRequest: string | null;
}

export type KeyEvent =
  | {
      type: 'KeyIssued';
      data: KeySettings & { keyId: string; orgId: string; name: string | null; employeeId: string | null; secretHash: string; secretHint: string };
    }
  | { type: 'KeyChanged'; data: Partial<KeySettings> }
  | { type: 'KeyRevoked'; data: Record<string, never> };

export const ORGANIZATION_EVENT_TYPES: ReadonlyArray<OrganizationEvent['type']> = [
  'OrganizationCreated',
  'OrganizationChanged',
  'TeamCreated',
  'EmployeeCreated',
  'SpaceCreated',
  'BudgetAlertsChanged',
  'AlertWebhookChanged',
];
export const KEY_EVENT_TYPES: ReadonlyArray<KeyEvent['type']> = ['KeyIssued', 'KeyChanged', 'KeyRevoked'];

export const organizationStreamId = (orgId: string) => `org-${orgId}`;
export const keyStreamId = (keyId: string) => `key-${keyId}`;
/** Every access stream starts with one of these. */
export const ACCESS_STREAM_PREFIXES: readonly string[] = ['org-', 'key-'];

export const NO_LIMITS: LimitPair = { daily: null, monthly: null };
export const NO_BUDGET_ALERTS: BudgetAlertRules = { limitPercentages: [], lowBalance: null };
export const DEFAULT_RPM = 120;
export const DEFAULT_TPM = 200_000;
