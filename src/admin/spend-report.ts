import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import type { SpendGroup, SpendReportRecord } from '../admin-records.js';
import { formatUsd } from '../billing/money.js';
import { parseBody } from './admin-schemas.js';

/**
 * `GET /admin/v1/organizations/{org}/spend?from&to&group_by=key|model|space|day|type`: settled spend from
 * the `spend_daily` read model, for UTC days `from`…`to` inclusive (default: this month so far).
 */
const GROUP_COLUMNS = { key: 'key_id', model: 'model', space: 'space_id', day: 'day', type: 'category' } as const satisfies Record<SpendGroup, string>;
const day = z.iso.date('must be a date YYYY-MM-DD');
export const spendQuery = z.strictObject({
  from: day.optional(),
  to: day.optional(),
  group_by: z.enum(Object.keys(GROUP_COLUMNS) as [keyof typeof GROUP_COLUMNS, ...Array<keyof typeof GROUP_COLUMNS>]).optional(),
});

export async function spendReport(db: Kysely<object>, orgId: string, query: unknown, now: Date): Promise<SpendReportRecord> {
  const input = parseBody(spendQuery, query);
  const today = now.toISOString().slice(0, 10);
  const from = input.from ?? `${today.slice(0, 7)}-01`;
  const to = input.to ?? today;
  const groupBy = input.group_by ?? 'day';
  const column = GROUP_COLUMNS[groupBy];
  const { rows } = await sql<{ group: string | null; cost: string; requests: string }>`
    select ${sql.ref(column)}::text as "group", sum(cost)::text as cost, sum(requests)::text as requests
    from spend_daily where org_id = ${orgId} and day between ${from}::date and ${to}::date
    group by 1 order by 1`.execute(db);
  const total = rows.reduce((sum, row) => sum + BigInt(row.cost), 0n);
  return {
    object: 'spend_report',
    organization_id: orgId,
    from,
    to,
    group_by: groupBy,
    data: rows.map((row) => ({ [groupBy]: row.group === '' ? null : row.group, cost_usd: formatUsd(BigInt(row.cost)), requests: Number(row.requests) })),
    total_usd: formatUsd(total),
  };
}
