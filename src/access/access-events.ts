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

export type OrganizationEvent =
  | { type: 'OrganizationCreated'; data: { orgId: string; name: string; piiMasking: boolean; spendLimits: LimitPair } }
  | { type: 'OrganizationChanged'; data: { status?: OrganizationStatus; piiMasking?: boolean; spendLimits?: LimitPair } }
  | { type: 'TeamCreated'; data: { teamId: string; name: string; spendLimits: LimitPair } }
  | { type: 'EmployeeCreated'; data: { employeeId: string; name: string; teamId: string | null; spendLimits: LimitPair } }
  | { type: 'SpaceCreated'; data: { spaceId: string; name: string } };

export interface KeySettings {
  models: string[] | null;
  limits: KeyLimits;
  rpm: number;
  tpm: number;
  expiresAt: string | null;
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
];
export const KEY_EVENT_TYPES: ReadonlyArray<KeyEvent['type']> = ['KeyIssued', 'KeyChanged', 'KeyRevoked'];

export const organizationStreamId = (orgId: string) => `org-${orgId}`;
export const keyStreamId = (keyId: string) => `key-${keyId}`;
/** Every access stream starts with one of these. */
export const ACCESS_STREAM_PREFIXES: readonly string[] = ['org-', 'key-'];

export const NO_LIMITS: LimitPair = { daily: null, monthly: null };
export const DEFAULT_RPM = 120;
export const DEFAULT_TPM = 200_000;
