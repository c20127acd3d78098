/** The admin API's records, as the console reads them (README, "Admin API"). Money: USD decimal strings. */
export interface LimitPair {
  daily_usd: string | null;
  monthly_usd: string | null;
}

export interface Organization {
  id: string;
  name: string;
  status: 'active' | 'blocked';
  pii_masking: boolean;
  balance_usd: string;
  reserved_usd: string;
  spend_limits: LimitPair;
}

export interface Key {
  id: string;
  organization_id: string;
  name: string | null;
  employee_id: string | null;
  secret_hint: string;
  models: string[] | null;
  limits: LimitPair & { by_type: Record<string, LimitPair>; by_model: Record<string, LimitPair> };
  rpm: number;
  tpm: number;
  expires_at: string | null;
  status: 'valid' | 'revoked' | 'expired';
}

export interface Team {
  id: string;
  name: string;
  spend_limits: LimitPair;
}

export interface Employee {
  id: string;
  name: string;
  team_id: string | null;
  spend_limits: LimitPair;
}

export interface Space {
  id: string;
  name: string;
}

export interface Reservation {
  id: string;
  key_id: string;
  employee_id: string | null;
  space_id: string | null;
  model: string;
  type: string;
  reserved_usd: string;
  reserved_at: string;
  expires_at: string;
}

export type SpendGroup = 'model' | 'key' | 'space' | 'type';

export interface DailySpend {
  from: string;
  to: string;
  group_by: SpendGroup;
  data: Array<{ day: string; cost_usd: string; requests: number } & Partial<Record<SpendGroup, string | null>>>;
  total_usd: string;
}

export interface ProjectionStatus {
  projection: string;
  generation: number;
  status: string;
  built_by_version: number | string | null;
  code_version: number | string | null;
  position: string | null;
  events_processed: number | string | null;
  updated_at: string | null;
  /** Lag at the top level (the agreed shape), or grouped under `lag`; the page reads either. */
  events_behind?: number | string | null;
  ms_behind?: number | null;
  lag?: { events_behind: number | string | null; ms_behind: number | null } | null;
}

export interface List<T> {
  data: T[];
}
