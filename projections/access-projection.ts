import { sql, type Transaction } from 'kysely';
import { accessEventDefinitions } from '../src/access/access-event-catalogue.js';
import { ACCESS_STREAM_PREFIXES } from '../src/access/access-events.js';
import { defineProjection } from './projection.js';

/**
 * The access read models, from the `org-…` and `key-…` streams: organizations, teams, employees,
 * spaces and keys, for reports and admin tools. Keys carry the SHA-256 of their secret, never the secret.
 * Limits are nanodollars (null = none). The gateway authenticates from its in-memory directory, not here.
 */
async function setup(trx: Transaction<object>): Promise<void> {
  await sql`create table organizations (
    org_id text primary key, name text not null, status text not null, pii_masking boolean not null,
    daily_limit numeric, monthly_limit numeric, created_at timestamptz not null, updated_at timestamptz not null
  )`.execute(trx);
  await sql`create table teams (team_id text primary key, org_id text not null, name text not null, daily_limit numeric, monthly_limit numeric)`.execute(trx);
  await sql`create table employees (
    employee_id text primary key, org_id text not null, team_id text, name text not null, daily_limit numeric, monthly_limit numeric
  )`.execute(trx);
  await sql`create table spaces (space_id text primary key, org_id text not null, name text not null)`.execute(trx);
  await sql`create table keys (
    key_id text primary key, org_id text not null, name text, employee_id text, secret_hash text not null unique, secret_hint text not null,
    models jsonb, limits jsonb not null, rpm integer not null, tpm integer not null, expires_at timestamptz,
    revoked boolean not null default false, created_at timestamptz not null, updated_at timestamptz not null
  )`.execute(trx);
  await sql`create index keys_by_org on keys (org_id)`.execute(trx);
}

export const accessProjection = defineProjection({
  name: 'access',
  version: 1,
  handles: accessEventDefinitions,
  streams: ACCESS_STREAM_PREFIXES,
  tables: ['organizations', 'teams', 'employees', 'spaces', 'keys'],
  setup,
  async apply(trx, event) {
    const at = event.metadata.occurredAt;
    const id = event.streamId.slice(event.streamId.indexOf('-') + 1);
    switch (event.type) {
      case 'OrganizationCreated': {
        const { name, piiMasking, spendLimits } = event.data;
        await sql`insert into organizations values (${id}, ${name}, 'active', ${piiMasking}, ${spendLimits.daily}::numeric, ${spendLimits.monthly}::numeric, ${at}, ${at})`.execute(trx);
        return;
      }
      case 'OrganizationChanged': {
        const { status, piiMasking, spendLimits } = event.data;
        await sql`update organizations set
            status = coalesce(${status ?? null}, status),
            pii_masking = coalesce(${piiMasking ?? null}::boolean, pii_masking),
            daily_limit = case when ${spendLimits !== undefined} then ${spendLimits?.daily ?? null}::numeric else daily_limit end,
            monthly_limit = case when ${spendLimits !== undefined} then ${spendLimits?.monthly ?? null}::numeric else monthly_limit end,
            updated_at = ${at}
          where org_id = ${id}`.execute(trx);
        return;
      }
      case 'TeamCreated':
        await sql`insert into teams values (${event.data.teamId}, ${id}, ${event.data.name}, ${event.data.spendLimits.daily}::numeric, ${event.data.spendLimits.monthly}::numeric)`.execute(trx);
        return;
      case 'EmployeeCreated': {
        const { employeeId, teamId, name, spendLimits } = event.data;
        await sql`insert into employees values (${employeeId}, ${id}, ${teamId}, ${name}, ${spendLimits.daily}::numeric, ${spendLimits.monthly}::numeric)`.execute(trx);
        return;
      }
      case 'SpaceCreated':
        await sql`insert into spaces values (${event.data.spaceId}, ${id}, ${event.data.name})`.execute(trx);
        return;
      case 'KeyIssued': {
        const key = event.data;
        await sql`insert into keys values (${key.keyId}, ${key.orgId}, ${key.name}, ${key.employeeId}, ${key.secretHash}, ${key.secretHint},
            ${key.models === null ? null : JSON.stringify(key.models)}::jsonb, ${JSON.stringify(key.limits)}::jsonb, ${key.rpm}, ${key.tpm}, ${key.expiresAt},
            false, ${at}, ${at})`.execute(trx);
        return;
      }
      case 'KeyChanged': {
        const change = event.data;
        await sql`update keys set
            models = case when ${change.models !== undefined} then ${change.models === undefined || change.models === null ? null : JSON.stringify(change.models)}::jsonb else models end,
            limits = coalesce(${change.limits === undefined ? null : JSON.stringify(change.limits)}::jsonb, limits),
            rpm = coalesce(${change.rpm ?? null}::integer, rpm),
            tpm = coalesce(${change.tpm ?? null}::integer, tpm),
            expires_at = case when ${change.expiresAt !== undefined} then ${change.expiresAt ?? null}::timestamptz else expires_at end,
            updated_at = ${at}
          where key_id = ${id}`.execute(trx);
        return;
      }
      case 'KeyRevoked':
        await sql`update keys set revoked = true, updated_at = ${at} where key_id = ${id}`.execute(trx);
        return;
    }
  },
});
