/**
 * The overview's records (`GET /overview`), part of the admin API's records: src/admin-records.ts
 * re-exports them, and the same rules hold (types only, importing nothing).
 */

/** Settled spend over UTC days `from`…`to` inclusive, across every organization, and the requests closed in it. */
export interface SpendPeriodRecord {
  from: string;
  to: string;
  total_usd: string;
  requests: number;
}

/** Requests reserved in one UTC minute (`minute`: its start) and how many of them ended in an error. */
export interface TrafficMinuteRecord {
  minute: string;
  requests: number;
  errors: number;
}

export interface TopOrganizationRecord {
  organization_id: string;
  name: string | null;
  cost_usd: string;
  requests: number;
}

export interface TopKeyRecord {
  key_id: string;
  name: string | null;
  organization_id: string;
  cost_usd: string;
  requests: number;
}

export interface TopModelRecord {
  model: string;
  cost_usd: string;
  requests: number;
}

/**
 * An organization with less than a tenth left of its balance (of the credits ever added) or of a spend
 * limit (what the limit counts: settled spend of the period and what is reserved in it).
 */
export interface AttentionRecord {
  organization_id: string;
  name: string;
  status: 'active' | 'blocked';
  reason: 'balance' | 'daily_limit' | 'monthly_limit';
  left_usd: string;
  of_usd: string;
  /** `left_usd` as a percentage of `of_usd`, to one decimal (not money: a ratio). */
  left_percent: number;
}

/** `GET /overview`: the whole gateway at a glance, from the read models. */
export interface OverviewRecord {
  object: 'overview';
  as_of: string;
  spend: { today: SpendPeriodRecord; yesterday: SpendPeriodRecord; month: SpendPeriodRecord; previous_month: SpendPeriodRecord };
  /** The last 60 minutes, this one included, oldest first; minutes without requests are zeros. */
  traffic: { from: string; to: string; requests: number; errors: number; data: TrafficMinuteRecord[] };
  top: { period: 'today' | 'month'; from: string; to: string; organizations: TopOrganizationRecord[]; keys: TopKeyRecord[]; models: TopModelRecord[] };
  attention: AttentionRecord[];
  open_reservations: { count: number; amount_usd: string; oldest_reserved_at: string | null; overdue: number };
}
