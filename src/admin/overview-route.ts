import { Router } from 'express';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { OverviewRecord } from '../admin-records.js';
import type { Clock } from '../clock.js';
import { parseBody } from './admin-schemas.js';
import { organizationsNeedingAttention } from './overview-attention.js';
import { overviewPeriods } from './overview-periods.js';
import { openReservations, spendPeriods, topSpenders, traffic } from './overview-queries.js';

/**
 * `GET /admin/v1/overview?period=today|month&top=5`: the whole gateway at a glance, the console's first
 * page (docs/operator-guide.md, "Admin API"): spend today and this month against the periods before,
 * requests and errors per minute over the last hour, the organizations, keys and models that spent most in
 * the period (`top` of each, default 5), the organizations close to their balance or a limit, and the open
 * reservations. Read from the read models, so every instance's traffic counts; the projections' lag is
 * `GET /admin/v1/projections`.
 */
export const overviewQuery = z.strictObject({
  period: z.enum(['today', 'month']).optional(),
  top: z.coerce.number({ error: 'must be an integer from 1 to 50' }).int('must be an integer from 1 to 50').min(1).max(50).optional(),
});

export function overviewRoute(deps: { readonly readModels: Kysely<object>; readonly clock: Clock }): Router {
  const router = Router();
  router.get('/admin/v1/overview', async (req, res) => {
    const input = parseBody(overviewQuery, req.query);
    const now = deps.clock.now();
    const periods = overviewPeriods(now);
    const period = input.period ?? 'month';
    const from = period === 'today' ? periods.today : periods.monthStart;
    const db = deps.readModels;
    res.json({
      object: 'overview',
      as_of: now.toISOString(),
      spend: await spendPeriods(db, periods),
      traffic: await traffic(db, now),
      top: { period, from, to: periods.today, ...(await topSpenders(db, from, periods.today, input.top ?? 5)) },
      attention: await organizationsNeedingAttention(db, periods),
      open_reservations: await openReservations(db, now),
    } satisfies OverviewRecord);
  });
  return router;
}
