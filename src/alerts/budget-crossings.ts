import type { BudgetAlertRules, BudgetScope, LimitPair } from '../access/access-events.js';
import { formatUsd } from '../billing/money.js';
import type { PeriodKind, SpendPeriods } from '../ledger/spend-periods.js';

/**
 * Which budget alerts one charge raises: pure, from what the alerts read model knows (projections/
 * budget-alerts-projection.ts), so that a replay of the log raises the same alerts with the same keys.
 *
 * - A percentage of a limit: when the settled spend of a scope (the organization, the request's key, its
 *   team, its employee) in the charge's day or month reaches that share of the scope's daily or monthly
 *   limit. Spend counts in the period its money was reserved in, as the limits do.
 * - The low balance: when the organization's balance (credits − settled) falls below the level.
 *
 * Each alert has a key saying what it is about; an alert whose key was raised before is not raised again.
 * A limit's key holds the period, the percentage and the limit, so each period, and a changed limit, alerts
 * afresh; the low balance's key is raised until a top-up brings the balance back to the level.
 */
export type AlertType = 'budget.threshold_crossed' | 'balance.low';

export interface ChargedScope {
  readonly scope: BudgetScope;
  readonly id: string;
  readonly limits: LimitPair;
  /** Settled spend after the charge, in the charge's day and month. */
  readonly spent: Readonly<Record<PeriodKind, bigint>>;
}

export interface Charge {
  readonly orgId: string;
  readonly requestId: string;
  readonly periods: SpendPeriods;
  readonly scopes: readonly ChargedScope[];
  readonly balance: bigint;
}

export interface BudgetAlert {
  readonly key: string;
  /** The period the key belongs to (`day:2026-11-21`, `month:2026-11`); none for the low balance. */
  readonly period: string | null;
  /** The balance level the key is about, for the low balance (re-armed by a top-up). */
  readonly level: bigint | null;
  readonly type: AlertType;
  readonly data: Readonly<Record<string, string | number>>;
}

const LIMIT_OF: Readonly<Record<PeriodKind, keyof LimitPair>> = { day: 'daily', month: 'monthly' };

/** The percentages that watch one scope: the rule naming it, else the rule of its whole scope. */
export function percentsFor(rules: BudgetAlertRules, scope: BudgetScope, id: string): readonly number[] {
  const own = rules.limitPercentages.find((rule) => rule.scope === scope && rule.id === id);
  return (own ?? rules.limitPercentages.find((rule) => rule.scope === scope && rule.id === null))?.percents ?? [];
}

export function lowBalanceKey(level: bigint): string {
  return `balance|${level}`;
}

export function budgetAlerts(rules: BudgetAlertRules, charge: Charge, raised: ReadonlySet<string>): BudgetAlert[] {
  const alerts: BudgetAlert[] = [];
  for (const scoped of charge.scopes) {
    const percents = percentsFor(rules, scoped.scope, scoped.id);
    for (const kind of ['day', 'month'] as const) {
      const limitText = scoped.limits[LIMIT_OF[kind]];
      if (limitText === null) continue;
      const limit = BigInt(limitText);
      const period = `${kind}:${charge.periods[kind]}`;
      for (const percent of percents) {
        const key = `limit|${scoped.scope}:${scoped.id}|${period}|${percent}|${limit}`;
        // spent / limit ≥ percent / 100, in integers
        if (raised.has(key) || scoped.spent[kind] * 100n < limit * BigInt(percent)) continue;
        alerts.push({
          key,
          period,
          level: null,
          type: 'budget.threshold_crossed',
          data: {
            organization_id: charge.orgId,
            scope: scoped.scope,
            scope_id: scoped.id,
            period: kind,
            period_start: charge.periods[kind],
            threshold_percent: percent,
            limit_usd: formatUsd(limit),
            spent_usd: formatUsd(scoped.spent[kind]),
            request_id: charge.requestId,
          },
        });
      }
    }
  }
  if (rules.lowBalance !== null) {
    const level = BigInt(rules.lowBalance);
    const key = lowBalanceKey(level);
    if (charge.balance < level && !raised.has(key)) {
      alerts.push({
        key,
        period: null,
        level,
        type: 'balance.low',
        data: { organization_id: charge.orgId, threshold_usd: formatUsd(level), balance_usd: formatUsd(charge.balance), request_id: charge.requestId },
      });
    }
  }
  return alerts;
}

/** The body of a webhook, in the Standard Webhooks payload shape: `{type, timestamp, data}`. */
export function webhookBody(type: string, timestamp: string, data: Readonly<Record<string, unknown>>): string {
  return JSON.stringify({ type, timestamp, data });
}
