/**
 * The spend controls' records (`/organizations/{org}/spend-controls`, `/webhook`, `/webhook-deliveries`),
 * part of the admin API's records: src/admin-records.ts re-exports them, and the same rules hold (types
 * only, importing nothing).
 */

/** Percentages of the daily and monthly limits of a scope: the organization, or every key, team or employee (`id` null) or one of them. */
export interface BudgetAlertRuleRecord {
  scope: 'organization' | 'key' | 'team' | 'employee';
  id: string | null;
  percents: number[];
}

export interface BudgetAlertsRecord {
  limit_percentages: BudgetAlertRuleRecord[];
  /** An alert when the prepaid balance falls below this; null: none. */
  low_balance_usd: string | null;
}

/** Where the organization's alerts go; the secret itself is shown only when it is made. */
export interface WebhookRecord {
  object: 'webhook';
  organization_id: string;
  url: string;
  /** The secret's last characters, to tell secrets apart. */
  secret_hint: string;
  /** The Standard Webhooks secret (`whsec_…`) the alerts are signed with: in the answer that made it, and nowhere else. */
  secret?: string;
}

/** An organization's spend controls: its concurrency cap, budget alerts and webhook. */
export interface SpendControlsRecord {
  object: 'spend_controls';
  organization_id: string;
  max_concurrent_requests: number | null;
  budget_alerts: BudgetAlertsRecord;
  webhook: WebhookRecord | null;
}

/** One webhook to send and how its attempts went; `id` is its `webhook-id`, the same on every attempt. */
export interface WebhookDeliveryRecord {
  id: string;
  object: 'webhook_delivery';
  organization_id: string;
  /** `budget.threshold_crossed`, `balance.low` or `webhook.test`. */
  type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  created_at: string;
  last_attempt_at: string | null;
  /** The receiver's HTTP status at the last attempt; null when it gave none (no answer, no webhook set). */
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  /** The body sent: `{type, timestamp, data}`. */
  payload: unknown;
}
