import { sql, type Transaction } from 'kysely';

/**
 * The ledger projection's tables (ledger-projection.ts fills them):
 * - `balances`: per organization, credits, settled cost, reserved amount and balance (credits − settled);
 * - `requests`: the request log, one row per reservation: who, which endpoint and model, reserved, cost,
 *   usage, status (and why a released one was released), times, and the stream revisions of the events
 *   that reserved and closed it, so that one request's audit trail is two reads of its account stream at
 *   known revisions, never a scan of a busy stream or of the whole log, and the instance holding it
 *   (`held_by`), whose survivors close its open requests if it dies;
 * - `requests_per_minute`: requests by the UTC minute they were reserved, with how many of them ended in an
 *   error, for the overview's last hour (read from here, every instance's traffic counts);
 * - `spend_daily`: settled cost and request counts per organization, UTC day, key, employee, team, space,
 *   type, model and price version (0: charged before prices were versioned), with the cost split by kind
 *   (`<kind>_cost`; a charge recorded without a split adds to none of them). Monthly figures and every
 *   grouping of the spend report are sums over it.
 *
 * Indexes of the request log: its pages are read newest first by keyset, `(reserved_at, request_id)` below
 * the last row shown, never with an offset, across all organizations, per organization and per key (the
 * filter most asked for); the other filters (model, space, status, endpoint) narrow the rows those walk.
 */
export const LEDGER_TABLES = ['balances', 'requests', 'requests_per_minute', 'spend_daily'] as const;

/** The kinds a charge is split into (billing/money.ts COST_KINDS), as `spend_daily`'s columns name them. */
export const KIND_COLUMNS = {
  input: 'input_cost',
  cachedInput: 'cached_input_cost',
  cacheWrite: 'cache_write_cost',
  output: 'output_cost',
  reasoning: 'reasoning_cost',
  audio: 'audio_cost',
  media: 'media_cost',
} as const;

export async function createLedgerTables(trx: Transaction<object>): Promise<void> {
  await sql`create table balances (
    org_id text primary key,
    credits numeric not null default 0,
    settled numeric not null default 0,
    reserved numeric not null default 0,
    balance numeric not null default 0,
    updated_at timestamptz not null
  )`.execute(trx);
  await sql`create table requests (
    request_id text primary key,
    org_id text not null,
    key_id text not null,
    employee_id text,
    team_id text,
    space_id text,
    endpoint text,
    model text not null,
    category text not null,
    price_version integer,
    service_tier text,
    reserved numeric not null,
    deadline timestamptz not null,
    status text not null,
    release_reason text,
    cost numeric,
    overrun numeric,
    pii_fee numeric,
    cost_by_kind jsonb,
    usage jsonb,
    reserved_at timestamptz not null,
    closed_at timestamptz,
    reserved_revision bigint not null,
    closed_revision bigint,
    held_by text
  )`.execute(trx);
  await sql`create index requests_open_by_deadline on requests (deadline) where status = 'open'`.execute(trx);
  await sql`create index requests_by_time on requests (reserved_at, request_id)`.execute(trx);
  await sql`create index requests_by_org_time on requests (org_id, reserved_at, request_id)`.execute(trx);
  await sql`create index requests_by_key_time on requests (key_id, reserved_at, request_id)`.execute(trx);
  await sql`create table requests_per_minute (
    minute timestamptz primary key,
    requests bigint not null,
    errors bigint not null
  )`.execute(trx);
  await sql`create table spend_daily (
    org_id text not null,
    day date not null,
    key_id text not null,
    employee_id text not null default '',
    team_id text not null default '',
    space_id text not null default '',
    category text not null,
    model text not null,
    price_version integer not null default 0,
    cost numeric not null,
    requests bigint not null,
    input_cost numeric not null default 0,
    cached_input_cost numeric not null default 0,
    cache_write_cost numeric not null default 0,
    output_cost numeric not null default 0,
    reasoning_cost numeric not null default 0,
    audio_cost numeric not null default 0,
    media_cost numeric not null default 0,
    primary key (org_id, day, key_id, employee_id, team_id, space_id, category, model, price_version)
  )`.execute(trx);
  // The overview sums a day or a month over every organization: by day, not through the primary key's org_id.
  await sql`create index spend_daily_by_day on spend_daily (day)`.execute(trx);
}

/**
 * Whether a request of the log ended in an error its client saw: cut off (the key was revoked meanwhile),
 * expired (the instance serving it was lost) or released for a failure. A release because the client
 * left (`cancelled`) is not one. The per-minute errors and the request log's `status=error` filter both
 * say it this way.
 */
export function endedInError(status: string, releaseReason: string | null): boolean {
  return status === 'cut_off' || status === 'expired' || (status === 'released' && releaseReason !== 'cancelled');
}

/** `endedInError` as a condition on a row of the `requests` table (or of the alias a query gives it). */
export function endedInErrorCondition(table = 'requests') {
  const status = sql.ref(`${table}.status`);
  return sql<boolean>`(${status} in ('cut_off', 'expired') or (${status} = 'released' and ${sql.ref(`${table}.release_reason`)} is distinct from 'cancelled'))`;
}
