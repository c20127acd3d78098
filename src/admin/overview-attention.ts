import { sql, type Kysely } from 'kysely';
import type { AttentionRecord } from '../admin-records.js';
import { formatUsd } from '../billing/money.js';
import type { OverviewPeriods } from './overview-periods.js';

/**
 * The organizations close to running out: under a tenth left of their balance, or of their daily or
 * monthly spend limit. The balance is held against every credit ever added (what is left of what they
 * paid in), less what is reserved right now; a limit against what the account decider counts for it
 * (src/ledger/account-decider.ts): the period's settled spend and what open requests of the period
 * hold. Organizations never credited have no balance to run out of and are left out. Key, employee and
 * team limits are not looked at here: the organization's page shows those.
 */
const SHARE_LEFT = 10n; // under 1/10 left
export const MAX_ATTENTION = 100;

interface Row {
  org_id: string;
  name: string;
  status: AttentionRecord['status'];
  credits: string | null;
  available: string | null;
  daily_limit: string | null;
  monthly_limit: string | null;
  used_today: string;
  used_month: string;
}

export async function organizationsNeedingAttention(db: Kysely<object>, periods: OverviewPeriods): Promise<AttentionRecord[]> {
  const todayStart = `${periods.today}T00:00:00.000Z`;
  const monthStart = `${periods.monthStart}T00:00:00.000Z`;
  const { rows } = await sql<Row>`
    with held as (
      select org_id, sum(reserved) filter (where reserved_at >= ${todayStart}::timestamptz) as today,
             sum(reserved) filter (where reserved_at >= ${monthStart}::timestamptz) as month
        from requests where status = 'open' group by org_id
    ), spent as (
      select org_id, sum(cost) filter (where day = ${periods.today}::date) as today, sum(cost) as month
        from spend_daily where day between ${periods.monthStart}::date and ${periods.today}::date group by org_id
    ), used as (
      select o.org_id, o.name, o.status, o.daily_limit, o.monthly_limit, b.credits, b.balance - b.reserved as available,
             coalesce(s.today, 0) + coalesce(h.today, 0) as today, coalesce(s.month, 0) + coalesce(h.month, 0) as month
        from organizations o
        left join balances b on b.org_id = o.org_id
        left join spent s on s.org_id = o.org_id
        left join held h on h.org_id = o.org_id
    )
    select org_id, name, status, credits::text, available::text, daily_limit::text, monthly_limit::text, today::text as used_today, month::text as used_month
      from used
     where (credits > 0 and available * ${SHARE_LEFT} < credits)
        or (daily_limit - today) * ${SHARE_LEFT} < daily_limit
        or (monthly_limit - month) * ${SHARE_LEFT} < monthly_limit`.execute(db);
  const found: AttentionRecord[] = [];
  for (const row of rows) {
    const check = (reason: AttentionRecord['reason'], left: bigint, of: bigint) => {
      if (left * SHARE_LEFT >= of) return;
      // tenths of a percent, rounded toward zero: a ratio to show, not an amount
      const tenths = of === 0n ? 0n : (left * 1000n) / of;
      found.push({ organization_id: row.org_id, name: row.name, status: row.status, reason, left_usd: formatUsd(left), of_usd: formatUsd(of), left_percent: Number(tenths) / 10 });
    };
    if (row.credits !== null && row.available !== null && BigInt(row.credits) > 0n) check('balance', BigInt(row.available), BigInt(row.credits));
    if (row.daily_limit !== null) check('daily_limit', BigInt(row.daily_limit) - BigInt(row.used_today), BigInt(row.daily_limit));
    if (row.monthly_limit !== null) check('monthly_limit', BigInt(row.monthly_limit) - BigInt(row.used_month), BigInt(row.monthly_limit));
  }
  found.sort((a, b) => a.left_percent - b.left_percent || a.organization_id.localeCompare(b.organization_id) || a.reason.localeCompare(b.reason));
  return found.slice(0, MAX_ATTENTION);
}
