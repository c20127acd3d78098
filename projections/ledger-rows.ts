import { sql, type Transaction } from 'kysely';
import type { SpendType } from '../src/billing/categories.js';
import type { EventOf } from '../src/eventstore/event-catalogue.js';
import type { accountEventDefinitions } from '../src/ledger/account-event-catalogue.js';
import type { CostByKindStrings } from '../src/ledger/account-events.js';
import { COST_KINDS, type CostKind } from '../src/billing/money.js';
import { KIND_COLUMNS } from './ledger-tables.js';

/**
 * The ledger projection's statements (ledger-projection.ts folds a batch, these write it): one statement
 * per table whatever the batch's size, each taking all its rows as one JSON parameter.
 */
export type LedgerEvent = EventOf<(typeof accountEventDefinitions)[number]>;

export interface RequestRow {
  request_id: string;
  org_id: string;
  key_id: string;
  employee_id: string | null;
  team_id: string | null;
  space_id: string | null;
  endpoint: string | null;
  model: string;
  category: string;
  price_version: number | null;
  service_tier: string | null;
  reserved: string;
  deadline: string;
  status: string;
  release_reason: string | null;
  cost: string | null;
  overrun: string | null;
  /** The PII masking fee: a part of `cost`, spent under the type `pii`. */
  pii_fee: string | null;
  /** The cost without the masking fee split by kind (JSON of the settle's `costByKind`). */
  cost_by_kind: string | null;
  usage: string | null;
  reserved_at: string;
  closed_at: string | null;
  reserved_revision: string;
  closed_revision: string | null;
  /** The instance whose request holds it (FundsReserved's `heldBy`): what its survivors close if it dies. */
  held_by: string | null;
  /** The UTC day of reserved_at: the day the request's spend counts for. */
  day: string;
  /** The UTC minute of reserved_at (ISO): where requests_per_minute counts the request. */
  minute: string;
}

export interface BalanceDelta {
  credits: bigint;
  settled: bigint;
  reserved: bigint;
  updatedAt: string;
}

export interface MinuteCounts {
  requests: number;
  errors: number;
}

/**
 * The open requests that this batch closes but did not open (opened by an earlier batch).
 *
 * "Open" is `closed_at is null` here and in `closeRequests`, not `status = 'open'`: with the status the
 * planner picks the partial index of open requests, which holds an entry for every request closed since the
 * last vacuum (thousands a second on a busy gateway), and walks them all on every batch. The two are the
 * same: a request gets its closing time when it stops being open.
 */
export async function openRequestsClosedBy(trx: Transaction<object>, events: readonly LedgerEvent[]): Promise<Map<string, RequestRow>> {
  const openedHere = new Set<string>();
  const wanted: string[] = [];
  for (const event of events) {
    if (event.type === 'FundsReserved') openedHere.add(event.data.reservationId);
    else if (event.type !== 'CreditsAdded' && event.type !== 'AccessRulesChanged' && !openedHere.has(event.data.reservationId)) wanted.push(event.data.reservationId);
  }
  if (wanted.length === 0) return new Map();
  const { rows } = await sql<RequestRow>`
    select request_id, org_id, key_id, employee_id, team_id, space_id, endpoint, model, category, price_version, service_tier, reserved::text as reserved,
           deadline::text as deadline, status, release_reason, cost::text as cost, overrun::text as overrun, pii_fee::text as pii_fee,
           cost_by_kind::text as cost_by_kind, usage::text as usage, reserved_at::text as reserved_at, closed_at::text as closed_at,
           reserved_revision::text as reserved_revision, closed_revision::text as closed_revision, held_by,
           to_char(reserved_at at time zone 'UTC', 'YYYY-MM-DD') as day,
           to_char(reserved_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:00.000"Z"') as minute
      from requests where request_id = any(${wanted}::text[]) and closed_at is null`.execute(trx);
  return new Map(rows.map((row) => [row.request_id, row]));
}

export async function insertRequests(trx: Transaction<object>, rows: readonly RequestRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`insert into requests (request_id, org_id, key_id, employee_id, team_id, space_id, endpoint, model, category, price_version, service_tier,
      reserved, deadline, status, release_reason, cost, overrun, pii_fee, cost_by_kind, usage, reserved_at, closed_at, reserved_revision, closed_revision, held_by)
    select request_id, org_id, key_id, employee_id, team_id, space_id, endpoint, model, category, price_version, service_tier,
      reserved, deadline, status, release_reason, cost, overrun, pii_fee, cost_by_kind::jsonb, usage::jsonb, reserved_at, closed_at, reserved_revision, closed_revision, held_by
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(request_id text, org_id text, key_id text, employee_id text, team_id text, space_id text,
        endpoint text, model text, category text, price_version integer, service_tier text, reserved numeric, deadline timestamptz, status text,
        release_reason text, cost numeric, overrun numeric, pii_fee numeric, cost_by_kind text, usage text, reserved_at timestamptz, closed_at timestamptz,
        reserved_revision bigint, closed_revision bigint, held_by text)`.execute(trx);
}

export async function closeRequests(trx: Transaction<object>, rows: readonly RequestRow[]): Promise<void> {
  if (rows.length === 0) return;
  const closings = rows.map(({ request_id, status, release_reason, cost, overrun, pii_fee, cost_by_kind, usage, closed_at, closed_revision }) => ({
    request_id,
    status,
    release_reason,
    cost,
    overrun,
    pii_fee,
    cost_by_kind,
    usage,
    closed_at,
    closed_revision,
  }));
  await sql`update requests r set status = v.status, release_reason = v.release_reason, cost = v.cost, overrun = v.overrun, pii_fee = v.pii_fee,
      cost_by_kind = v.cost_by_kind::jsonb, usage = v.usage::jsonb, closed_at = v.closed_at, closed_revision = v.closed_revision
    from jsonb_to_recordset(${JSON.stringify(closings)}::jsonb) as v(request_id text, status text, release_reason text, cost numeric, overrun numeric,
      pii_fee numeric, cost_by_kind text, usage text, closed_at timestamptz, closed_revision bigint)
    where r.request_id = v.request_id and r.closed_at is null`.execute(trx);
}

export async function addToBalances(trx: Transaction<object>, balances: ReadonlyMap<string, BalanceDelta>): Promise<void> {
  if (balances.size === 0) return;
  const rows = [...balances].map(([orgId, delta]) => ({
    org_id: orgId,
    credits: String(delta.credits),
    settled: String(delta.settled),
    reserved: String(delta.reserved),
    updated_at: delta.updatedAt,
  }));
  await sql`insert into balances (org_id, credits, settled, reserved, balance, updated_at)
    select org_id, credits, settled, reserved, credits - settled, updated_at
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(org_id text, credits numeric, settled numeric, reserved numeric, updated_at timestamptz)
    on conflict (org_id) do update set
      credits = balances.credits + excluded.credits,
      settled = balances.settled + excluded.settled,
      reserved = balances.reserved + excluded.reserved,
      balance = balances.balance + excluded.balance,
      updated_at = excluded.updated_at`.execute(trx);
}

export async function addToMinutes(trx: Transaction<object>, minutes: ReadonlyMap<string, MinuteCounts>): Promise<void> {
  if (minutes.size === 0) return;
  const rows = [...minutes].map(([minute, counts]) => ({ minute, ...counts }));
  await sql`insert into requests_per_minute (minute, requests, errors)
    select minute, requests, errors from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(minute timestamptz, requests bigint, errors bigint)
    on conflict (minute) do update set
      requests = requests_per_minute.requests + excluded.requests,
      errors = requests_per_minute.errors + excluded.errors`.execute(trx);
}

/** Spend of a batch per spend row: a request's row under a type (its model's category, or `pii` for its masking fee). */
export type SpendTotals = Map<string, { row: RequestRow; type: SpendType; cost: bigint; requests: number; byKind: Record<CostKind, bigint> }>;

/** Adds to the spend of the request's row under `type`, and its split by kind when the charge has one. */
export function addSpend(spend: SpendTotals, row: RequestRow, type: SpendType, cost: bigint, requests: number, byKind: CostByKindStrings = {}): void {
  const key = JSON.stringify([row.org_id, row.day, row.key_id, row.employee_id ?? '', row.team_id ?? '', row.space_id ?? '', type, row.model, row.price_version ?? 0]);
  const total = spend.get(key) ?? { row, type, cost: 0n, requests: 0, byKind: Object.fromEntries(COST_KINDS.map((kind) => [kind, 0n])) as Record<CostKind, bigint> };
  total.cost += cost;
  total.requests += requests;
  for (const kind of COST_KINDS) if (byKind[kind] !== undefined) total.byKind[kind] += BigInt(byKind[kind]);
  spend.set(key, total);
}

export async function addToSpend(trx: Transaction<object>, spend: SpendTotals): Promise<void> {
  if (spend.size === 0) return;
  const rows = [...spend.values()].map(({ row, type, cost, requests, byKind }) => ({
    org_id: row.org_id,
    day: row.day,
    key_id: row.key_id,
    employee_id: row.employee_id ?? '',
    team_id: row.team_id ?? '',
    space_id: row.space_id ?? '',
    category: type,
    model: row.model,
    price_version: row.price_version ?? 0,
    cost: String(cost),
    requests,
    ...Object.fromEntries(COST_KINDS.map((kind) => [KIND_COLUMNS[kind], String(byKind[kind])])),
  }));
  await sql`insert into spend_daily (org_id, day, key_id, employee_id, team_id, space_id, category, model, price_version, cost, requests,
      input_cost, cached_input_cost, cache_write_cost, output_cost, reasoning_cost, audio_cost, media_cost)
    select org_id, day, key_id, employee_id, team_id, space_id, category, model, price_version, cost, requests,
      input_cost, cached_input_cost, cache_write_cost, output_cost, reasoning_cost, audio_cost, media_cost
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(org_id text, day date, key_id text, employee_id text, team_id text, space_id text,
        category text, model text, price_version integer, cost numeric, requests bigint, input_cost numeric, cached_input_cost numeric,
        cache_write_cost numeric, output_cost numeric, reasoning_cost numeric, audio_cost numeric, media_cost numeric)
    on conflict (org_id, day, key_id, employee_id, team_id, space_id, category, model, price_version) do update set
      cost = spend_daily.cost + excluded.cost, requests = spend_daily.requests + excluded.requests,
      input_cost = spend_daily.input_cost + excluded.input_cost, cached_input_cost = spend_daily.cached_input_cost + excluded.cached_input_cost,
      cache_write_cost = spend_daily.cache_write_cost + excluded.cache_write_cost, output_cost = spend_daily.output_cost + excluded.output_cost,
      reasoning_cost = spend_daily.reasoning_cost + excluded.reasoning_cost, audio_cost = spend_daily.audio_cost + excluded.audio_cost,
      media_cost = spend_daily.media_cost + excluded.media_cost`.execute(trx);
}
