import type { AlertWebhook, BudgetAlertRules } from '../access/access-events.js';
import type { OrganizationState } from '../access/organization-decider.js';
import type { SpendControlsRecord, WebhookDeliveryRecord, WebhookRecord } from '../admin-records.js';
import type { DeliveryRow } from '../alerts/webhook-deliveries.js';
import { formatUsd, parseUsd } from '../billing/money.js';
import type { SpendControlsBody } from './admin-schemas.js';

/** The spend controls' records (src/admin-records/spend-control-records.ts) and the rules their bodies set, for the routes and the admin CLI alike. */
export function renderWebhook(orgId: string, webhook: AlertWebhook, withSecret: boolean): WebhookRecord {
  return { object: 'webhook', organization_id: orgId, url: webhook.url, secret_hint: `…${webhook.secret.slice(-4)}`, ...(withSecret ? { secret: webhook.secret } : {}) };
}

export function renderSpendControls(organization: OrganizationState): SpendControlsRecord {
  const { budgetAlerts } = organization;
  return {
    object: 'spend_controls',
    organization_id: organization.orgId,
    max_concurrent_requests: organization.maxConcurrentRequests,
    budget_alerts: {
      limit_percentages: budgetAlerts.limitPercentages.map((rule) => ({ scope: rule.scope, id: rule.id, percents: [...rule.percents] })),
      low_balance_usd: budgetAlerts.lowBalance === null ? null : formatUsd(BigInt(budgetAlerts.lowBalance)),
    },
    webhook: organization.webhook ? renderWebhook(organization.orgId, organization.webhook, false) : null,
  };
}

/** The budget alert rules of a body; percentages sorted and without repeats. */
export function budgetAlertRulesFromBody(body: NonNullable<SpendControlsBody['budget_alerts']>): BudgetAlertRules {
  return {
    limitPercentages: body.limit_percentages.map((rule) => ({ scope: rule.scope, id: rule.id ?? null, percents: [...new Set(rule.percents)].sort((a, b) => a - b) })),
    lowBalance: body.low_balance_usd === undefined || body.low_balance_usd === null ? null : String(parseUsd(body.low_balance_usd)),
  };
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

export function renderDelivery(row: DeliveryRow): WebhookDeliveryRecord {
  return {
    id: row.delivery_id,
    object: 'webhook_delivery',
    organization_id: row.org_id,
    type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    created_at: iso(row.created_at)!,
    last_attempt_at: iso(row.last_attempt_at),
    last_status: row.last_status,
    last_error: row.last_error,
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    delivered_at: iso(row.delivered_at),
    payload: JSON.parse(row.body) as unknown,
  };
}
