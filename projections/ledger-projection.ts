import { sql, type Transaction } from 'kysely';
import type { ModelCategory, SpendType } from '../src/billing/categories.js';
import type { EventOf } from '../src/eventstore/event-catalogue.js';
import { accountEventDefinitions } from '../src/ledger/account-event-catalogue.js';
import { defineProjection } from './projection.js';

/**
 * The ledger's read models, from the `account-…` streams:
 * - `balances`: per organization, credits, settled cost, reserved amount and balance (credits − settled);
 * - `requests`: the request log, one row per reservation (who, which model, reserved, cost, usage, status,
 *   times); the open ones past their deadline are what the reservation sweeper expires
 *   (overdue-reservations.ts);
 * - `spend_daily`: settled cost and request counts per organization, UTC day, key, employee, team, space,
 *   type and model. Monthly figures and every grouping of the spend report are sums over it.
 * A request's spend belongs to the day its money was reserved (the same rule as the limits). The PII
 * masking fee of a masked request is spend of its own type, `pii` (on the request's key, space and model,
 * counting no request of its own: the request is counted once, under its model's type); the request's row
 * keeps the fee in `pii_fee`, a part of its `cost`.
 *
 * Version 2: the `pii` rows and `requests.pii_fee`, from the settle and cut-off events of version 2.
 *
 * Every request writes two events, so a busy gateway writes thousands a second: the batch is folded in
 * memory (sums per organization and per spend row, one row per request) and written with five statements
 * whatever its size, each taking all its rows as one JSON parameter.
 */
const ledgerTables = ['balances', 'requests', 'spend_daily'] as const;

async function setup(trx: Transaction<object>): Promise<void> {
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
    model text not null,
    category text not null,
    reserved numeric not null,
    deadline timestamptz not null,
    status text not null,
    cost numeric,
    overrun numeric,
    pii_fee numeric,
    usage jsonb,
    reserved_at timestamptz not null,
    closed_at timestamptz
  )`.execute(trx);
  await sql`create index requests_open_by_deadline on requests (deadline) where status = 'open'`.execute(trx);
  await sql`create index requests_by_org_time on requests (org_id, reserved_at)`.execute(trx);
  await sql`create table spend_daily (
    org_id text not null,
    day date not null,
    key_id text not null,
    employee_id text not null default '',
    team_id text not null default '',
    space_id text not null default '',
    category text not null,
    model text not null,
    cost numeric not null,
    requests bigint not null,
    primary key (org_id, day, key_id, employee_id, team_id, space_id, category, model)
  )`.execute(trx);
}

type LedgerEvent = EventOf<(typeof accountEventDefinitions)[number]>;

interface RequestRow {
  request_id: string;
  org_id: string;
  key_id: string;
  employee_id: string | null;
  team_id: string | null;
  space_id: string | null;
  model: string;
  category: ModelCategory;
  reserved: string;
  deadline: string;
  status: string;
  cost: string | null;
  overrun: string | null;
  pii_fee: string | null;
  usage: string | null;
  reserved_at: string;
  closed_at: string | null;
  /** The UTC day of reserved_at: the day the request's spend counts for. */
  day: string;
}

interface BalanceDelta {
  credits: bigint;
  settled: bigint;
  reserved: bigint;
  updatedAt: string;
}

const CLOSED_STATUS = { ReservationSettled: 'settled', ReservationCutOff: 'cut_off', ReservationReleased: 'released', ReservationExpired: 'expired' } as const;

export const ledgerProjection = defineProjection({
  name: 'ledger',
  version: 2,
  handles: accountEventDefinitions,
  tables: ledgerTables,
  setup,
  async applyBatch(trx, events) {
    const earlier = await openRequestsClosedBy(trx, events);
    const opened = new Map<string, RequestRow>();
    const closedEarlier: RequestRow[] = [];
    const balances = new Map<string, BalanceDelta>();
    const spend: SpendTotals = new Map();
    const balanceOf = (orgId: string, at: string) => {
      let delta = balances.get(orgId);
      if (!delta) balances.set(orgId, (delta = { credits: 0n, settled: 0n, reserved: 0n, updatedAt: at }));
      delta.updatedAt = at;
      return delta;
    };

    for (const event of events) {
      const orgId = event.streamId.slice('account-'.length);
      const at = event.metadata.occurredAt;
      switch (event.type) {
        case 'CreditsAdded':
          balanceOf(orgId, at).credits += BigInt(event.data.amount);
          break;
        case 'FundsReserved': {
          const data = event.data;
          opened.set(data.reservationId, {
            request_id: data.reservationId,
            org_id: orgId,
            key_id: data.keyId,
            employee_id: data.employeeId,
            team_id: data.teamId,
            space_id: data.spaceId,
            model: data.model,
            category: data.category,
            reserved: data.amount,
            deadline: data.deadline,
            status: 'open',
            cost: null,
            overrun: null,
            pii_fee: null,
            usage: null,
            reserved_at: at,
            closed_at: null,
            day: new Date(at).toISOString().slice(0, 10),
          });
          balanceOf(orgId, at).reserved += BigInt(data.amount);
          break;
        }
        case 'ReservationSettled':
        case 'ReservationCutOff':
        case 'ReservationReleased':
        case 'ReservationExpired': {
          const id = event.data.reservationId;
          const row = opened.get(id) ?? earlier.get(id);
          // The account decider never closes twice; nothing to undo for a request that is not open.
          if (!row || row.org_id !== orgId || row.status !== 'open') break;
          const charged = event.type === 'ReservationSettled' || event.type === 'ReservationCutOff';
          const cost = charged ? event.data.cost : '0';
          const piiFee = charged ? BigInt(event.data.piiMaskingFee) : 0n;
          row.status = CLOSED_STATUS[event.type];
          row.cost = cost;
          row.overrun = event.type === 'ReservationSettled' ? event.data.overrun : '0';
          row.pii_fee = String(piiFee);
          row.usage = event.type === 'ReservationSettled' || event.type === 'ReservationCutOff' ? JSON.stringify(event.data.usage) : null;
          row.closed_at = at;
          if (!opened.has(id)) closedEarlier.push(row);
          const balance = balanceOf(orgId, at);
          balance.settled += BigInt(cost);
          balance.reserved -= BigInt(row.reserved);
          addSpend(spend, row, row.category, BigInt(cost) - piiFee, 1);
          if (piiFee > 0n) addSpend(spend, row, 'pii', piiFee, 0);
          break;
        }
        case 'AccessRulesChanged':
          break;
      }
    }

    await insertRequests(trx, [...opened.values()]);
    await closeRequests(trx, closedEarlier);
    await addToBalances(trx, balances);
    await addToSpend(trx, [...spend.values()]);
  },
});

type SpendTotals = Map<string, { row: RequestRow; type: SpendType; cost: bigint; requests: number }>;

/** Adds to the spend of the request's row under `type` (its model's category, or `pii` for its masking fee). */
function addSpend(spend: SpendTotals, row: RequestRow, type: SpendType, cost: bigint, requests: number): void {
  const key = JSON.stringify([row.org_id, row.day, row.key_id, row.employee_id ?? '', row.team_id ?? '', row.space_id ?? '', type, row.model]);
  const total = spend.get(key) ?? { row, type, cost: 0n, requests: 0 };
  total.cost += cost;
  total.requests += requests;
  spend.set(key, total);
}

/**
 * The open requests that this batch closes but did not open (opened by an earlier batch).
 *
 * "Open" is `closed_at is null` here and in `closeRequests`, not `status = 'open'`: with the status the
 * planner picks the partial index of open requests, which holds an entry for every request closed since the
 * last vacuum (thousands a second on a busy gateway), and walks them all on every batch. The two are the
 * same: a request gets its closing time when it stops being open.
 */
async function openRequestsClosedBy(trx: Transaction<object>, events: readonly LedgerEvent[]): Promise<Map<string, RequestRow>> {
  const openedHere = new Set<string>();
  const wanted: string[] = [];
  for (const event of events) {
    if (event.type === 'FundsReserved') openedHere.add(event.data.reservationId);
    else if (event.type !== 'CreditsAdded' && event.type !== 'AccessRulesChanged' && !openedHere.has(event.data.reservationId)) wanted.push(event.data.reservationId);
  }
  if (wanted.length === 0) return new Map();
  const { rows } = await sql<RequestRow>`
    select request_id, org_id, key_id, employee_id, team_id, space_id, model, category, reserved::text as reserved, deadline::text as deadline,
           status, cost::text as cost, overrun::text as overrun, pii_fee::text as pii_fee, usage::text as usage, reserved_at::text as reserved_at, closed_at::text as closed_at,
           to_char(reserved_at at time zone 'UTC', 'YYYY-MM-DD') as day
      from requests where request_id = any(${wanted}::text[]) and closed_at is null`.execute(trx);
  return new Map(rows.map((row) => [row.request_id, row]));
}

async function insertRequests(trx: Transaction<object>, rows: readonly RequestRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`insert into requests (request_id, org_id, key_id, employee_id, team_id, space_id, model, category, reserved, deadline, status, cost, overrun, pii_fee, usage, reserved_at, closed_at)
    select request_id, org_id, key_id, employee_id, team_id, space_id, model, category, reserved, deadline, status, cost, overrun, pii_fee, usage::jsonb, reserved_at, closed_at
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(request_id text, org_id text, key_id text, employee_id text, team_id text, space_id text,
        model text, category text, reserved numeric, deadline timestamptz, status text, cost numeric, overrun numeric, pii_fee numeric, usage text, reserved_at timestamptz, closed_at timestamptz)`.execute(trx);
}

async function closeRequests(trx: Transaction<object>, rows: readonly RequestRow[]): Promise<void> {
  if (rows.length === 0) return;
  const closings = rows.map(({ request_id, status, cost, overrun, pii_fee, usage, closed_at }) => ({ request_id, status, cost, overrun, pii_fee, usage, closed_at }));
  await sql`update requests r set status = v.status, cost = v.cost, overrun = v.overrun, pii_fee = v.pii_fee, usage = v.usage::jsonb, closed_at = v.closed_at
    from jsonb_to_recordset(${JSON.stringify(closings)}::jsonb) as v(request_id text, status text, cost numeric, overrun numeric, pii_fee numeric, usage text, closed_at timestamptz)
    where r.request_id = v.request_id and r.closed_at is null`.execute(trx);
}

async function addToBalances(trx: Transaction<object>, balances: ReadonlyMap<string, BalanceDelta>): Promise<void> {
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

async function addToSpend(trx: Transaction<object>, totals: ReadonlyArray<{ row: RequestRow; type: SpendType; cost: bigint; requests: number }>): Promise<void> {
  if (totals.length === 0) return;
  const rows = totals.map(({ row, type, cost, requests }) => ({
    org_id: row.org_id,
    day: row.day,
    key_id: row.key_id,
    employee_id: row.employee_id ?? '',
    team_id: row.team_id ?? '',
    space_id: row.space_id ?? '',
    category: type,
    model: row.model,
    cost: String(cost),
    requests,
  }));
  await sql`insert into spend_daily (org_id, day, key_id, employee_id, team_id, space_id, category, model, cost, requests)
    select org_id, day, key_id, employee_id, team_id, space_id, category, model, cost, requests
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(org_id text, day date, key_id text, employee_id text, team_id text, space_id text,
        category text, model text, cost numeric, requests bigint)
    on conflict (org_id, day, key_id, employee_id, team_id, space_id, category, model) do update set
      cost = spend_daily.cost + excluded.cost, requests = spend_daily.requests + excluded.requests`.execute(trx);
}
