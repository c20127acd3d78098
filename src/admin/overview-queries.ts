import { sql, type Kysely } from 'kysely';
import type { OverviewRecord, SpendPeriodRecord, TopKeyRecord, TopModelRecord, TopOrganizationRecord, TrafficMinuteRecord } from '../admin-records.js';
import { formatUsd } from '../billing/money.js';
import type { OverviewPeriods } from './overview-periods.js';

/**
 * The overview's figures from the ledger's read models (projections/ledger-tables.ts): spend from
 * `spend_daily` (settled and cut-off cost, by the UTC day the money was reserved: the spend report's rule),
 * traffic from `requests_per_minute`, open reservations from `requests`. Sums stay numeric in Postgres and
 * travel as text, so no amount passes through a float.
 */
const usd = (nanos: string) => formatUsd(BigInt(nanos));

interface Figures {
  cost: string;
  requests: string;
}

export async function spendPeriods(db: Kysely<object>, periods: OverviewPeriods): Promise<OverviewRecord['spend']> {
  const { today, yesterday, monthStart, previousMonthStart, previousMonthEnd } = periods;
  const sum = (from: string, to: string, name: string) =>
    sql`coalesce(sum(cost) filter (where day between ${from}::date and ${to}::date), 0)::text as ${sql.ref(`${name}_cost`)},
        coalesce(sum(requests) filter (where day between ${from}::date and ${to}::date), 0)::text as ${sql.ref(`${name}_requests`)}`;
  const { rows } = await sql<Record<string, string>>`
    select ${sum(today, today, 'today')}, ${sum(yesterday, yesterday, 'yesterday')}, ${sum(monthStart, today, 'month')},
           ${sum(previousMonthStart, previousMonthEnd, 'previous')}
      from spend_daily where day between least(${previousMonthStart}::date, ${yesterday}::date) and ${today}::date`.execute(db);
  const row = rows[0]!;
  const period = (from: string, to: string, name: string): SpendPeriodRecord => ({ from, to, total_usd: usd(row[`${name}_cost`]!), requests: Number(row[`${name}_requests`]) });
  return {
    today: period(today, today, 'today'),
    yesterday: period(yesterday, yesterday, 'yesterday'),
    month: period(monthStart, today, 'month'),
    previous_month: period(previousMonthStart, previousMonthEnd, 'previous'),
  };
}

/** The organizations, keys and models that spent most over days `from`…`to`; ties by id, so pages agree. */
export async function topSpenders(db: Kysely<object>, from: string, to: string, limit: number) {
  const inPeriod = sql`day between ${from}::date and ${to}::date`;
  const organizations = await sql<Figures & { organization_id: string; name: string | null }>`
    select s.org_id as organization_id, o.name, s.cost, s.requests from (
      select org_id, sum(cost)::text as cost, sum(requests)::text as requests, sum(cost) as total from spend_daily where ${inPeriod}
       group by org_id order by total desc, org_id limit ${limit}) s
      left join organizations o on o.org_id = s.org_id order by s.total desc, s.org_id`.execute(db);
  const keys = await sql<Figures & { key_id: string; organization_id: string; name: string | null }>`
    select s.key_id, s.org_id as organization_id, k.name, s.cost, s.requests from (
      select key_id, org_id, sum(cost)::text as cost, sum(requests)::text as requests, sum(cost) as total from spend_daily where ${inPeriod}
       group by key_id, org_id order by total desc, key_id limit ${limit}) s
      left join keys k on k.key_id = s.key_id order by s.total desc, s.key_id`.execute(db);
  const models = await sql<Figures & { model: string }>`
    select model, sum(cost)::text as cost, sum(requests)::text as requests from spend_daily where ${inPeriod}
     group by model order by sum(cost) desc, model limit ${limit}`.execute(db);
  const figures = (row: Figures) => ({ cost_usd: usd(row.cost), requests: Number(row.requests) });
  return {
    organizations: organizations.rows.map((row): TopOrganizationRecord => ({ organization_id: row.organization_id, name: row.name, ...figures(row) })),
    keys: keys.rows.map((row): TopKeyRecord => ({ key_id: row.key_id, name: row.name, organization_id: row.organization_id, ...figures(row) })),
    models: models.rows.map((row): TopModelRecord => ({ model: row.model, ...figures(row) })),
  };
}

const MINUTE_MS = 60_000;
export const TRAFFIC_MINUTES = 60;

/** Requests and errors per minute over the last hour, this minute included, every minute present. */
export async function traffic(db: Kysely<object>, now: Date): Promise<OverviewRecord['traffic']> {
  const last = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS;
  const first = last - (TRAFFIC_MINUTES - 1) * MINUTE_MS;
  const { rows } = await sql<{ minute: string; requests: string; errors: string }>`
    select to_char(minute at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as minute, requests::text, errors::text
      from requests_per_minute where minute between ${new Date(first).toISOString()}::timestamptz and ${new Date(last).toISOString()}::timestamptz`.execute(db);
  const counted = new Map(rows.map((row) => [row.minute, row]));
  const data: TrafficMinuteRecord[] = [];
  for (let minute = first; minute <= last; minute += MINUTE_MS) {
    const at = new Date(minute).toISOString();
    const row = counted.get(at);
    data.push({ minute: at, requests: Number(row?.requests ?? 0), errors: Number(row?.errors ?? 0) });
  }
  return {
    from: new Date(first).toISOString(),
    to: new Date(last + MINUTE_MS).toISOString(),
    requests: data.reduce((sum, minute) => sum + minute.requests, 0),
    errors: data.reduce((sum, minute) => sum + minute.errors, 0),
    data,
  };
}

/** Every reservation still open, and how many of them are past their deadline (the sweeper's to expire). */
export async function openReservations(db: Kysely<object>, now: Date): Promise<OverviewRecord['open_reservations']> {
  const { rows } = await sql<{ count: string; amount: string; oldest: string | null; overdue: string }>`
    select count(*)::text as count, coalesce(sum(reserved), 0)::text as amount,
           to_char(min(reserved_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as oldest,
           count(*) filter (where deadline < ${now.toISOString()}::timestamptz)::text as overdue
      from requests where status = 'open'`.execute(db);
  const row = rows[0]!;
  return { count: Number(row.count), amount_usd: usd(row.amount), oldest_reserved_at: row.oldest, overdue: Number(row.overdue) };
}
