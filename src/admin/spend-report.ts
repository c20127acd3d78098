import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import type { SpendGroup, SpendReportRecord } from '../admin-records.js';
import { spendByKindRecord } from '../audit/audit-format.js';
import { COST_KINDS, formatUsd, type CostKind } from '../billing/money.js';
import { KIND_COLUMNS } from '../../projections/ledger-tables.js';
import { parseBody } from './admin-schemas.js';

/**
 * `GET /admin/v1/organizations/{org}/spend?from&to&group_by=key|model|space|day|type|price_version`: settled
 * spend from the `spend_daily` read model, for UTC days `from`…`to` inclusive (default: this month so far),
 * each group's and the total split by kind (`cost_by_kind`). A price version is a model's: its group is
 * `<model>@v<n>` (null for spend charged before prices were versioned).
 */
const GROUP_COLUMNS = {
  key: sql.ref('key_id'),
  model: sql.ref('model'),
  space: sql.ref('space_id'),
  day: sql.ref('day'),
  type: sql.ref('category'),
  price_version: sql`case when price_version = 0 then null else model || '@v' || price_version end`,
} as const satisfies Record<SpendGroup, unknown>;
const kindSums = sql.join(COST_KINDS.map((kind) => sql`sum(${sql.ref(KIND_COLUMNS[kind])})::text as ${sql.ref(kind)}`));
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
  const { rows } = await sql<{ group: string | null; cost: string; requests: string } & Record<CostKind, string>>`
    select ${GROUP_COLUMNS[groupBy]}::text as "group", sum(cost)::text as cost, sum(requests)::text as requests, ${kindSums}
    from spend_daily where org_id = ${orgId} and day between ${from}::date and ${to}::date
    group by 1 order by 1`.execute(db);
  const total = rows.reduce((sum, row) => sum + BigInt(row.cost), 0n);
  const totalByKind = Object.fromEntries(COST_KINDS.map((kind) => [kind, rows.reduce((sum, row) => sum + BigInt(row[kind]), 0n)])) as Record<CostKind, bigint>;
  return {
    object: 'spend_report',
    organization_id: orgId,
    from,
    to,
    group_by: groupBy,
    data: rows.map((row) => ({
      [groupBy]: row.group === '' ? null : row.group,
      cost_usd: formatUsd(BigInt(row.cost)),
      requests: Number(row.requests),
      cost_by_kind: spendByKindRecord((kind) => BigInt(row[kind])),
    })),
    total_usd: formatUsd(total),
    total_by_kind: spendByKindRecord((kind) => totalByKind[kind]),
  };
}
