import { sql, type Transaction } from 'kysely';
import type { BudgetAlertRules, LimitPair } from '../src/access/access-events.js';
import { insertDeliveries } from '../src/alerts/webhook-deliveries.js';
import { periodsOf } from '../src/ledger/spend-periods.js';
import { scopeName, spendKey, type AlertEvent, type AlertFold, type AlertReservation, type AlertTables, type RaisedAlert } from './budget-alert-fold.js';

/**
 * The budget alerts projection's statements: the rows one batch reads (a few statements, whatever the
 * batch's size) and the rows it changed, written back with one statement per table, each taking its rows
 * as one JSON parameter. `budget_alert_decisions` and `webhook_deliveries` are outside the generation's
 * schema (migration 0104): a rebuild reads and writes the same ones as the live generation.
 */
export async function createAlertTables(trx: Transaction<object>): Promise<void> {
  await sql`create table alert_organizations (org_id text primary key, credits numeric not null, settled numeric not null, rules jsonb)`.execute(trx);
  await sql`create table alert_limits (scope text primary key, daily numeric, monthly numeric)`.execute(trx);
  await sql`create table alert_reservations (
    reservation_id text primary key, org_id text not null, key_id text not null, employee_id text, team_id text, day text not null, month text not null
  )`.execute(trx);
  await sql`create table alert_spend (scope text not null, period text not null, spent numeric not null, primary key (scope, period))`.execute(trx);
  await sql`create table alert_raised (org_id text not null, alert_key text not null, period text, level numeric, primary key (org_id, alert_key))`.execute(trx);
}

export const ALERT_TABLES = ['alert_organizations', 'alert_limits', 'alert_reservations', 'alert_spend', 'alert_raised'];

const orgOf = (streamId: string) => streamId.slice(streamId.indexOf('-') + 1);

/** The rows the batch's events read: the reservations they close, and the organizations, spend, limits, raised alerts and decisions of their charges. */
export async function loadAlertTables(trx: Transaction<object>, events: readonly AlertEvent[]): Promise<AlertTables> {
  const openedHere = new Map<string, Omit<AlertReservation, 'reservation_id'>>();
  const closing: string[] = [];
  const organizations = new Set<string>();
  const accountStreams = new Set<string>();
  for (const event of events) {
    if (event.streamId.startsWith('account-')) accountStreams.add(event.streamId);
    if (!event.streamId.startsWith('key-')) organizations.add(orgOf(event.streamId));
    if (event.type === 'FundsReserved') {
      const { keyId, employeeId, teamId } = event.data;
      openedHere.set(event.data.reservationId, { org_id: orgOf(event.streamId), key_id: keyId, employee_id: employeeId, team_id: teamId, ...periodsOf(event.metadata.occurredAt) });
    } else if ('reservationId' in event.data && !openedHere.has(event.data.reservationId)) closing.push(event.data.reservationId);
  }
  const reservations = new Map(
    (await sql<AlertReservation>`select * from alert_reservations where reservation_id = any(${closing}::text[])`.execute(trx)).rows.map((row) => [row.reservation_id, row]),
  );
  const scopes = new Set<string>();
  const periods = new Set<string>();
  for (const event of events) {
    if (event.type !== 'ReservationSettled' && event.type !== 'ReservationCutOff') continue;
    const owner = reservations.get(event.data.reservationId) ?? openedHere.get(event.data.reservationId);
    if (!owner) continue;
    scopes.add(scopeName('organization', owner.org_id)).add(scopeName('key', owner.key_id));
    if (owner.team_id) scopes.add(scopeName('team', owner.team_id));
    if (owner.employee_id) scopes.add(scopeName('employee', owner.employee_id));
    periods.add(`day:${owner.day}`).add(`month:${owner.month}`);
  }
  const orgRows = await sql<{ org_id: string; credits: string; settled: string; rules: BudgetAlertRules | string | null }>`
    select org_id, credits::text as credits, settled::text as settled, rules from alert_organizations where org_id = any(${[...organizations]}::text[])`.execute(trx);
  const spendRows = await sql<{ scope: string; period: string; spent: string }>`
    select scope, period, spent::text as spent from alert_spend where scope = any(${[...scopes]}::text[]) and period = any(${[...periods]}::text[])`.execute(trx);
  const limitRows = await sql<{ scope: string } & LimitPair>`
    select scope, daily::text as daily, monthly::text as monthly from alert_limits where scope = any(${[...scopes]}::text[])`.execute(trx);
  const raisedRows = await sql<{ org_id: string; alert_key: string; period: string | null; level: string | null }>`
    select org_id, alert_key, period, level::text as level from alert_raised
    where org_id = any(${[...organizations]}::text[]) and (period is null or period = any(${[...periods]}::text[]))`.execute(trx);
  // locked: a rebuild running beside the live generation waits for the other's decisions of these streams
  const decidedRows = await sql<{ stream_id: string; revision: string }>`
    select stream_id, revision::text as revision from public.budget_alert_decisions where stream_id = any(${[...accountStreams]}::text[]) for update`.execute(trx);
  const raised = new Map<string, Map<string, RaisedAlert>>();
  for (const row of raisedRows.rows) {
    let ofOrg = raised.get(row.org_id);
    if (!ofOrg) raised.set(row.org_id, (ofOrg = new Map()));
    ofOrg.set(row.alert_key, { period: row.period, level: row.level === null ? null : BigInt(row.level) });
  }
  return {
    organizations: new Map(
      orgRows.rows.map((row) => [
        row.org_id,
        { credits: BigInt(row.credits), settled: BigInt(row.settled), rules: typeof row.rules === 'string' ? (JSON.parse(row.rules) as BudgetAlertRules) : row.rules },
      ]),
    ),
    reservations,
    spend: new Map(spendRows.rows.map((row) => [spendKey(row.scope, row.period), BigInt(row.spent)])),
    limits: new Map(limitRows.rows.map((row) => [row.scope, { daily: row.daily, monthly: row.monthly }])),
    raised,
    decided: new Map(decidedRows.rows.map((row) => [row.stream_id, BigInt(row.revision)])),
  };
}

const json = (rows: readonly unknown[]) => JSON.stringify(rows);

/** Writes what the fold changed: one statement per table with changes. */
export async function writeAlertFold(trx: Transaction<object>, fold: AlertFold, tables: AlertTables): Promise<void> {
  if (fold.organizations.size > 0) {
    const rows = [...fold.organizations].map((orgId) => {
      const organization = tables.organizations.get(orgId)!;
      return { org_id: orgId, credits: String(organization.credits), settled: String(organization.settled), rules: organization.rules };
    });
    await sql`insert into alert_organizations (org_id, credits, settled, rules)
      select org_id, credits, settled, rules from jsonb_to_recordset(${json(rows)}::jsonb) as v(org_id text, credits numeric, settled numeric, rules jsonb)
      on conflict (org_id) do update set credits = excluded.credits, settled = excluded.settled, rules = excluded.rules`.execute(trx);
  }
  if (fold.limits.size > 0) {
    const rows = [...fold.limits].map((scope) => ({ scope, ...tables.limits.get(scope)! }));
    await sql`insert into alert_limits (scope, daily, monthly)
      select scope, daily, monthly from jsonb_to_recordset(${json(rows)}::jsonb) as v(scope text, daily numeric, monthly numeric)
      on conflict (scope) do update set daily = excluded.daily, monthly = excluded.monthly`.execute(trx);
  }
  if (fold.opened.size > 0) {
    await sql`insert into alert_reservations select * from jsonb_to_recordset(${json([...fold.opened.values()])}::jsonb)
      as v(reservation_id text, org_id text, key_id text, employee_id text, team_id text, day text, month text)`.execute(trx);
  }
  if (fold.closed.size > 0) await sql`delete from alert_reservations where reservation_id = any(${[...fold.closed]}::text[])`.execute(trx);
  if (fold.spend.size > 0) {
    const rows = [...fold.spend].map((key) => {
      const [scope, period] = key.split('|') as [string, string];
      return { scope, period, spent: String(tables.spend.get(key)!) };
    });
    await sql`insert into alert_spend (scope, period, spent)
      select scope, period, spent from jsonb_to_recordset(${json(rows)}::jsonb) as v(scope text, period text, spent numeric)
      on conflict (scope, period) do update set spent = excluded.spent`.execute(trx);
  }
  await writeRaised(trx, fold, tables);
  if (fold.decided.size > 0) {
    const rows = [...fold.decided].map((streamId) => ({ stream_id: streamId, revision: String(tables.decided.get(streamId)!) }));
    await sql`insert into public.budget_alert_decisions as decided (stream_id, revision)
      select stream_id, revision from jsonb_to_recordset(${json(rows)}::jsonb) as v(stream_id text, revision bigint)
      on conflict (stream_id) do update set revision = excluded.revision where decided.revision < excluded.revision`.execute(trx);
  }
  await insertDeliveries(trx, fold.deliveries);
}

/** The raised alerts the fold touched, as they ended: still raised, or re-armed (deleted). */
async function writeRaised(trx: Transaction<object>, fold: AlertFold, tables: AlertTables): Promise<void> {
  const kept: Array<{ org_id: string; alert_key: string; period: string | null; level: string | null }> = [];
  const dropped: Array<{ org_id: string; alert_key: string }> = [];
  for (const [orgId, keys] of fold.raised) {
    for (const key of keys) {
      const alert = tables.raised.get(orgId)?.get(key);
      if (alert) kept.push({ org_id: orgId, alert_key: key, period: alert.period, level: alert.level === null ? null : String(alert.level) });
      else dropped.push({ org_id: orgId, alert_key: key });
    }
  }
  if (kept.length > 0) {
    await sql`insert into alert_raised (org_id, alert_key, period, level)
      select org_id, alert_key, period, level from jsonb_to_recordset(${json(kept)}::jsonb) as v(org_id text, alert_key text, period text, level numeric)
      on conflict (org_id, alert_key) do nothing`.execute(trx);
  }
  if (dropped.length > 0) {
    await sql`delete from alert_raised r using jsonb_to_recordset(${json(dropped)}::jsonb) as v(org_id text, alert_key text)
      where r.org_id = v.org_id and r.alert_key = v.alert_key`.execute(trx);
  }
}
