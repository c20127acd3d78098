import { sql, type Transaction } from 'kysely';
import { accountEventDefinitions } from '../src/ledger/account-event-catalogue.js';
import { defineProjection } from './projection.js';

/**
 * The ledger's read models, from the `account-…` streams:
 * - `balances`: per organization, credits, settled cost, reserved amount and balance (credits − settled);
 * - `requests`: the request log, one row per reservation (who, which model, reserved, cost, usage, status,
 *   times); the open ones are what the reservation sweeper looks at;
 * - `spend_daily`: settled cost and request counts per organization, UTC day, key, employee, team, space,
 *   type and model. Monthly figures and every grouping of the spend report are sums over it.
 * A request's spend belongs to the day its money was reserved (the same rule as the limits).
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

export const ledgerProjection = defineProjection({
  name: 'ledger',
  version: 1,
  handles: accountEventDefinitions,
  tables: ledgerTables,
  setup,
  async apply(trx, event) {
    const orgId = event.streamId.slice('account-'.length);
    const at = event.metadata.occurredAt;
    const balance = (credits: string, settled: string, reserved: string) => sql`
      insert into balances (org_id, credits, settled, reserved, balance, updated_at)
      values (${orgId}, ${credits}::numeric, ${settled}::numeric, ${reserved}::numeric, ${credits}::numeric - ${settled}::numeric, ${at})
      on conflict (org_id) do update set
        credits = balances.credits + excluded.credits,
        settled = balances.settled + excluded.settled,
        reserved = balances.reserved + excluded.reserved,
        balance = balances.balance + excluded.balance,
        updated_at = excluded.updated_at`.execute(trx);
    switch (event.type) {
      case 'CreditsAdded':
        await balance(event.data.amount, '0', '0');
        return;
      case 'FundsReserved': {
        const data = event.data;
        await sql`insert into requests (request_id, org_id, key_id, employee_id, team_id, space_id, model, category, reserved, deadline, status, reserved_at)
          values (${data.reservationId}, ${orgId}, ${data.keyId}, ${data.employeeId}, ${data.teamId}, ${data.spaceId}, ${data.model}, ${data.category},
                  ${data.amount}::numeric, ${data.deadline}, 'open', ${at})`.execute(trx);
        await balance('0', '0', data.amount);
        return;
      }
      case 'ReservationSettled':
      case 'ReservationCutOff':
      case 'ReservationReleased':
      case 'ReservationExpired': {
        const cost = event.type === 'ReservationSettled' || event.type === 'ReservationCutOff' ? event.data.cost : '0';
        const status = { ReservationSettled: 'settled', ReservationCutOff: 'cut_off', ReservationReleased: 'released', ReservationExpired: 'expired' }[event.type];
        const overrun = event.type === 'ReservationSettled' ? event.data.overrun : '0';
        const usage = event.type === 'ReservationSettled' || event.type === 'ReservationCutOff' ? JSON.stringify(event.data.usage) : null;
        const { rows } = await sql<{ reserved: string; key_id: string; employee_id: string | null; team_id: string | null; space_id: string | null; category: string; model: string; day: string }>`
          update requests set status = ${status}, cost = ${cost}::numeric, overrun = ${overrun}::numeric, usage = ${usage}::jsonb, closed_at = ${at}
          where request_id = ${event.data.reservationId} and org_id = ${orgId} and status = 'open'
          returning reserved::text, key_id, employee_id, team_id, space_id, category, model, to_char(reserved_at at time zone 'UTC', 'YYYY-MM-DD') as day`.execute(trx);
        const request = rows[0];
        if (!request) return; // the account decider never closes twice; nothing to undo
        await balance('0', cost, `-${request.reserved}`);
        await sql`insert into spend_daily (org_id, day, key_id, employee_id, team_id, space_id, category, model, cost, requests)
          values (${orgId}, ${request.day}::date, ${request.key_id}, ${request.employee_id ?? ''}, ${request.team_id ?? ''}, ${request.space_id ?? ''},
                  ${request.category}, ${request.model}, ${cost}::numeric, 1)
          on conflict (org_id, day, key_id, employee_id, team_id, space_id, category, model) do update set
            cost = spend_daily.cost + excluded.cost, requests = spend_daily.requests + 1`.execute(trx);
        return;
      }
      case 'AccessRulesChanged':
        return;
    }
  },
});
