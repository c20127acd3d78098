import { Router } from 'express';
import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import type { AccessCommands } from '../access/access-commands.js';
import type { DailySpendGroup, DailySpendRecord } from '../admin-records.js';
import type { Clock } from '../clock.js';
import { formatUsd } from '../billing/money.js';
import { GatewayError } from '../errors/gateway-error.js';
import { parseBody } from './admin-schemas.js';

/**
 * `GET /admin/v1/organizations/{org}/spend/daily?from&to&group_by=model|key|space|type`: settled spend per
 * UTC day and group, what the console's stacked chart draws. The same read model and the same day rule as
 * the spend report (src/admin/spend-report.ts), so the sums over a group equal its figures there.
 * Only days and groups with spend appear; at most 366 days per call.
 */
const GROUP_COLUMNS = { key: 'key_id', model: 'model', space: 'space_id', type: 'category' } as const satisfies Record<DailySpendGroup, string>;
type Group = keyof typeof GROUP_COLUMNS;
const day = z.iso.date('must be a date YYYY-MM-DD');
const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

export const dailySpendQuery = z.strictObject({
  from: day.optional(),
  to: day.optional(),
  group_by: z.enum(Object.keys(GROUP_COLUMNS) as [Group, ...Group[]]).optional(),
});

export function dailySpendRoutes(deps: { readonly readModels: Kysely<object>; readonly commands: AccessCommands; readonly clock: Clock }): Router {
  const router = Router();
  router.get('/admin/v1/organizations/:org/spend/daily', async (req, res) => {
    const input = parseBody(dailySpendQuery, req.query);
    await deps.commands.loadOrganization(req.params.org);
    const today = deps.clock.now().toISOString().slice(0, 10);
    const from = input.from ?? `${today.slice(0, 7)}-01`;
    const to = input.to ?? today;
    const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
    if (days < 1) throw parseError('to', 'must not be before from');
    if (days > MAX_DAYS) throw parseError('to', `the period is at most ${MAX_DAYS} days`);
    const groupBy = input.group_by ?? 'model';
    const { rows } = await sql<{ day: string; group: string; cost: string; requests: string }>`
      select day::text as day, ${sql.ref(GROUP_COLUMNS[groupBy])}::text as "group", sum(cost)::text as cost, sum(requests)::text as requests
      from spend_daily where org_id = ${req.params.org} and day between ${from}::date and ${to}::date
      group by 1, 2 order by 1, 2`.execute(deps.readModels);
    const total = rows.reduce((sum, row) => sum + BigInt(row.cost), 0n);
    res.json({
      object: 'spend_daily',
      organization_id: req.params.org,
      from,
      to,
      group_by: groupBy,
      data: rows.map((row) => ({ day: row.day, [groupBy]: row.group === '' ? null : row.group, cost_usd: formatUsd(BigInt(row.cost)), requests: Number(row.requests) })),
      total_usd: formatUsd(total),
    } satisfies DailySpendRecord);
  });
  return router;
}

const parseError = (field: string, message: string) => new GatewayError('invalid_request', `${field}: ${message}`, { param: field });
