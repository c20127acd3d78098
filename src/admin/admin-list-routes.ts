import { Router } from 'express';
import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import type { AccessCommands } from '../access/access-commands.js';
import type { ListedOrganizationRecord, OrganizationRecord, PageRecord, ReservationRecord } from '../admin-records.js';
import { formatUsd } from '../billing/money.js';
import { parseBody } from './admin-schemas.js';
import { renderLimitPair } from './record-renderers.js';

/**
 * Paginated lists from the read models, for the console and scripts (README, "Admin API"):
 * - `GET /admin/v1/organizations?limit&after`: every organization with its balance and reserved amount,
 *   newest first (the one just created is on the first page);
 * - `GET /admin/v1/organizations/{org}/reservations?limit&after`: the organization's open reservations,
 *   oldest first (the ones held longest are the ones to look at).
 * `after` is the last id of the previous page, `has_more` says whether another follows.
 * The read models follow the log within milliseconds, so a top-up shows here a moment after its answer.
 */
export const pageQuery = z.strictObject({
  limit: z.coerce.number({ error: 'must be an integer from 1 to 100' }).int('must be an integer from 1 to 100').min(1).max(100).optional(),
  after: z.string().min(1).max(200).optional(),
});

export const DEFAULT_PAGE_SIZE = 20;

function page<Row, Rendered>(rows: Row[], limit: number, idOf: (row: Row) => string, render: (row: Row) => Rendered): PageRecord<Rendered> {
  const shown = rows.slice(0, limit);
  return {
    object: 'list',
    data: shown.map(render),
    first_id: shown.length > 0 ? idOf(shown[0]!) : null,
    last_id: shown.length > 0 ? idOf(shown.at(-1)!) : null,
    has_more: rows.length > limit,
  };
}

const usd = (nanos: string | null) => formatUsd(BigInt(nanos ?? '0'));

interface OrganizationRow {
  org_id: string;
  name: string;
  status: OrganizationRecord['status'];
  pii_masking: boolean;
  daily_limit: string | null;
  monthly_limit: string | null;
  created_at: string;
  balance: string | null;
  reserved: string | null;
}

interface ReservationRow {
  request_id: string;
  key_id: string;
  employee_id: string | null;
  team_id: string | null;
  space_id: string | null;
  model: string;
  category: string;
  reserved: string;
  reserved_at: string;
  deadline: string;
}

const iso = (timestamp: string) => new Date(timestamp).toISOString();

/** An organization as the read models hold it: no balances row (zero) until its account's first event. */
function renderListedOrganization(row: OrganizationRow): ListedOrganizationRecord {
  return {
    id: row.org_id,
    object: 'organization',
    name: row.name,
    status: row.status,
    pii_masking: row.pii_masking,
    balance_usd: usd(row.balance),
    reserved_usd: usd(row.reserved),
    spend_limits: renderLimitPair({ daily: row.daily_limit, monthly: row.monthly_limit }),
    created_at: iso(row.created_at),
  };
}

function renderReservation(orgId: string, row: ReservationRow): ReservationRecord {
  return {
    id: row.request_id,
    object: 'reservation',
    organization_id: orgId,
    key_id: row.key_id,
    employee_id: row.employee_id,
    team_id: row.team_id,
    space_id: row.space_id,
    model: row.model,
    type: row.category,
    reserved_usd: usd(row.reserved),
    reserved_at: iso(row.reserved_at),
    expires_at: iso(row.deadline),
  };
}

export function adminListRoutes(deps: { readonly readModels: Kysely<object>; readonly commands: AccessCommands }): Router {
  const router = Router();
  const db = deps.readModels;

  router.get('/admin/v1/organizations', async (req, res) => {
    const input = parseBody(pageQuery, req.query);
    const limit = input.limit ?? DEFAULT_PAGE_SIZE;
    const after = input.after ?? null;
    const { rows } = await sql<OrganizationRow>`
      select o.org_id, o.name, o.status, o.pii_masking, o.daily_limit::text as daily_limit, o.monthly_limit::text as monthly_limit,
        o.created_at::text as created_at, b.balance::text as balance, b.reserved::text as reserved
      from organizations o left join balances b on b.org_id = o.org_id
      where ${after}::text is null
         or (o.created_at, o.org_id) < (select created_at, org_id from organizations where org_id = ${after})
      order by o.created_at desc, o.org_id desc
      limit ${limit + 1}`.execute(db);
    res.json(page(rows, limit, (row) => row.org_id, renderListedOrganization));
  });

  router.get('/admin/v1/organizations/:org/reservations', async (req, res) => {
    const input = parseBody(pageQuery, req.query);
    await deps.commands.loadOrganization(req.params.org);
    const limit = input.limit ?? DEFAULT_PAGE_SIZE;
    const after = input.after ?? null;
    const { rows } = await sql<ReservationRow>`
      select request_id, key_id, employee_id, team_id, space_id, model, category, reserved::text as reserved,
        reserved_at::text as reserved_at, deadline::text as deadline
      from requests
      where org_id = ${req.params.org} and closed_at is null
        and (${after}::text is null
          or (reserved_at, request_id) > (select reserved_at, request_id from requests where request_id = ${after}))
      order by reserved_at, request_id
      limit ${limit + 1}`.execute(db);
    res.json(page(rows, limit, (row) => row.request_id, (row) => renderReservation(req.params.org, row)));
  });

  return router;
}
