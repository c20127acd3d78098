import { sql, type Kysely, type RawBuilder } from 'kysely';
import { z } from 'zod';
import { endedInErrorCondition } from '../../projections/ledger-tables.js';
import { GatewayError } from '../errors/gateway-error.js';
import { parseBody } from './admin-schemas.js';

/**
 * The request log's pages (`GET /admin/v1/requests`, `GET /admin/v1/organizations/{org}/requests`): the
 * `requests` read model newest first, `(reserved_at, request_id)` descending, paged by keyset: a page
 * starts below the row named by `after` (or at the row named by `from_id`, which is how the console
 * jumps to a request it searched for), never at an offset, so page 5,000 costs what page 1 does. The
 * organization's and the key's filters walk their own index (projections/ledger-tables.ts); the other
 * filters narrow the rows the walk reads.
 */
const STATUSES = ['open', 'settled', 'cut_off', 'released', 'expired', 'error'] as const;
const id = z.string().min(1).max(200);
/** An instant with its offset, or a UTC day (its midnight). */
const instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'must be a time such as 2026-11-20T14:00:00Z or a day such as 2026-11-20' });

export const requestLogQuery = z.strictObject({
  limit: z.coerce.number({ error: 'must be an integer from 1 to 100' }).int('must be an integer from 1 to 100').min(1).max(100).optional(),
  after: id.optional(),
  from_id: id.optional(),
  key_id: id.optional(),
  model: id.optional(),
  space_id: id.optional(),
  endpoint: id.optional(),
  status: z.enum(STATUSES).optional(),
  /** Reserved at or after. */
  from: instant.optional(),
  /** Reserved before. */
  to: instant.optional(),
});

export type RequestLogQuery = z.infer<typeof requestLogQuery>;

export const DEFAULT_REQUEST_PAGE = 20;

/** The columns every request log answer renders (request-log-records.ts). */
export interface RequestLogRow {
  request_id: string;
  org_id: string;
  organization_name: string | null;
  key_id: string;
  key_name: string | null;
  employee_id: string | null;
  team_id: string | null;
  space_id: string | null;
  endpoint: string | null;
  model: string;
  category: string;
  status: string;
  release_reason: string | null;
  error: boolean;
  reserved: string;
  cost: string | null;
  overrun: string | null;
  usage: Record<string, number | boolean> | null;
  reserved_at: string;
  closed_at: string | null;
  reserved_revision: string;
  closed_revision: string | null;
}

const utc = (column: string) => sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The row's columns, with the organization's and the key's names from the access read models. */
const COLUMNS = sql`r.request_id, r.org_id, o.name as organization_name, r.key_id, k.name as key_name, r.employee_id, r.team_id, r.space_id,
  r.endpoint, r.model, r.category, r.status, r.release_reason, ${endedInErrorCondition('r')} as error, r.reserved::text as reserved, r.cost::text as cost,
  r.overrun::text as overrun, r.usage, ${utc('r.reserved_at')} as reserved_at, ${utc('r.closed_at')} as closed_at,
  r.reserved_revision::text as reserved_revision, r.closed_revision::text as closed_revision`;

export function parseRequestLogQuery(query: unknown): RequestLogQuery {
  const input = parseBody(requestLogQuery, query);
  if (input.after !== undefined && input.from_id !== undefined) throw new GatewayError('invalid_request', 'from_id: give after or from_id, not both', { param: 'from_id' });
  return input;
}

/** One page of the log: `limit` + 1 rows, the last telling whether another page follows. */
export async function requestLogPage(db: Kysely<object>, orgId: string | undefined, input: RequestLogQuery, limit: number): Promise<RequestLogRow[]> {
  const conditions: RawBuilder<unknown>[] = [];
  const equal = (column: string, value: string | undefined) => value !== undefined && conditions.push(sql`${sql.ref(column)} = ${value}`);
  equal('org_id', orgId);
  equal('key_id', input.key_id);
  equal('model', input.model);
  equal('space_id', input.space_id);
  equal('endpoint', input.endpoint);
  if (input.status === 'error') conditions.push(endedInErrorCondition());
  else equal('status', input.status);
  if (input.from !== undefined) conditions.push(sql`reserved_at >= ${input.from}::timestamptz`);
  if (input.to !== undefined) conditions.push(sql`reserved_at < ${input.to}::timestamptz`);
  // The subquery is an init plan: the walk starts at the cursor row's position in the index.
  if (input.after !== undefined) conditions.push(sql`(reserved_at, request_id) < (select reserved_at, request_id from requests where request_id = ${input.after})`);
  if (input.from_id !== undefined) conditions.push(sql`(reserved_at, request_id) <= (select reserved_at, request_id from requests where request_id = ${input.from_id})`);
  const where = conditions.length > 0 ? sql`where ${sql.join(conditions, sql` and `)}` : sql``;
  const { rows } = await sql<RequestLogRow>`
    select ${COLUMNS}
      from (select * from requests ${where} order by reserved_at desc, request_id desc limit ${limit + 1}) r
      left join organizations o on o.org_id = r.org_id
      left join keys k on k.key_id = r.key_id
     order by r.reserved_at desc, r.request_id desc`.execute(db);
  return rows;
}

export async function requestLogRow(db: Kysely<object>, requestId: string): Promise<RequestLogRow | undefined> {
  const { rows } = await sql<RequestLogRow>`
    select ${COLUMNS}
      from requests r left join organizations o on o.org_id = r.org_id left join keys k on k.key_id = r.key_id
     where r.request_id = ${requestId}`.execute(db);
  return rows[0];
}
