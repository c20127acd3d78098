import { sql, type Kysely } from 'kysely';
import type { SpendType } from '../billing/categories.js';
import { ledgerProjection } from '../../projections/ledger-projection.js';
import { COST_KINDS, type CostKind } from '../billing/money.js';
import { KIND_COLUMNS } from '../../projections/ledger-tables.js';
import { addSpendByKind, emptyLedgerFold, emptySpendRow, type LedgerFold, type SpendRow } from './audit-fold.js';
import type { AuditFilter } from './audit-report.js';

/**
 * What the ledger read models say, read in one repeatable-read transaction together with the ledger
 * projection's checkpoint, so the rows are exactly the log folded up to that position: reconcile and
 * verify replay the log to the same position and compare like with like, whatever the projection's lag.
 */
export interface ReadModelBalance {
  readonly credits: bigint;
  readonly settled: bigint;
  readonly reserved: bigint;
  readonly balance: bigint;
}

export interface ReadModelSnapshot {
  /** The ledger projection's checkpoint (active generation); null before its first event. */
  readonly checkpoint: string | null;
  readonly balances: Map<string, ReadModelBalance>;
  /** The `requests` table in the shape of the audit's fold (credits are not in it). */
  readonly requests: LedgerFold;
  /** The `spend_daily` table in the same shape; it holds request counts and spend only. */
  readonly spendDaily: LedgerFold;
}

/** Raised when the ledger read model has never been built here (no active generation). */
export class NoReadModelError extends Error {
  override name = 'NoReadModelError';
}

interface GroupedRow {
  org_id: string;
  day: string;
  key_id: string;
  space_id: string | null;
  category: SpendType;
  model: string;
  price_version: number | null;
}

/** Spend by kind as the queries below return it (decimal strings, one per kind). */
type KindSums = Record<CostKind, string>;

/** `sum(<column>) as <kind>` for every kind: of `spend_daily`'s columns, or of the `requests` row's JSON split. */
const kindSumsOfColumns = sql.join(COST_KINDS.map((kind) => sql`coalesce(sum(${sql.ref(KIND_COLUMNS[kind])}), 0)::text as ${sql.ref(kind)}`));
const kindSumsOfJson = sql.join(COST_KINDS.map((kind) => sql`coalesce(sum((cost_by_kind ->> ${kind})::numeric), 0)::text as ${sql.ref(kind)}`));

export async function readLedgerReadModels(db: Kysely<object>, filter: Pick<AuditFilter, 'orgId'> & Partial<Pick<AuditFilter, 'from' | 'to'>>): Promise<ReadModelSnapshot> {
  const org = filter.orgId === undefined ? sql`true` : sql`org_id = ${filter.orgId}`;
  const from = filter.from ?? '0001-01-01';
  const to = filter.to ?? '9999-12-31';
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const checkpoints = await sql<{ position: string | null }>`select position from projection_checkpoints
        where projection = ${ledgerProjection.name} and status = 'active'`.execute(trx);
      if (checkpoints.rows.length === 0) throw new NoReadModelError(`the ${ledgerProjection.name} read model has not been built in this database`);
      const balances = await sql<{ org_id: string; credits: string; settled: string; reserved: string; balance: string }>`
        select org_id, credits::text, settled::text, reserved::text, balance::text from balances where ${org}`.execute(trx);
      const closed = await sql<GroupedRow & KindSums & { status: string; n: string; cost: string; overruns: string; overrun: string; pii_fee: string }>`
        select org_id, to_char(reserved_at at time zone 'UTC', 'YYYY-MM-DD') as day, key_id, space_id, category, model, price_version, status,
               count(*)::text as n, coalesce(sum(cost), 0)::text as cost, count(*) filter (where overrun > 0)::text as overruns,
               coalesce(sum(overrun), 0)::text as overrun, coalesce(sum(pii_fee), 0)::text as pii_fee, ${kindSumsOfJson}
          from requests
         where ${org} and status <> 'open' and (reserved_at at time zone 'UTC')::date between ${from}::date and ${to}::date
         group by 1, 2, 3, 4, 5, 6, 7, 8`.execute(trx);
      const open = await sql<GroupedRow & { request_id: string; reserved: string; service_tier: string | null }>`
        select org_id, to_char(reserved_at at time zone 'UTC', 'YYYY-MM-DD') as day, key_id, space_id, category, model, price_version, service_tier,
               request_id, reserved::text
          from requests where ${org} and status = 'open'`.execute(trx);
      // spend_daily keeps "charged before prices were versioned" as version 0; the audit as null
      const spend = await sql<GroupedRow & KindSums & { requests: string; cost: string }>`
        select org_id, to_char(day, 'YYYY-MM-DD') as day, key_id, space_id, category, model, nullif(price_version, 0) as price_version,
               sum(requests)::text as requests, sum(cost)::text as cost, ${kindSumsOfColumns}
          from spend_daily where ${org} and day between ${from}::date and ${to}::date
         group by 1, 2, 3, 4, 5, 6, 7`.execute(trx);

      const requests = emptyLedgerFold();
      for (const row of closed.rows) {
        const target = rowOf(requests, row);
        const count = Number(row.n);
        // a masked request's fee is spend of the type pii, as in the audit's fold (audit-fold.ts)
        const piiFee = BigInt(row.pii_fee);
        if (piiFee > 0n) rowOf(requests, { ...row, category: 'pii' }).spend += piiFee;
        target.requests += count;
        addSpendByKind(target.byKind, kindsOf(row));
        if (row.status === 'settled') {
          target.spend += BigInt(row.cost) - piiFee;
          target.settled += count;
          target.overruns += Number(row.overruns);
          target.overrunAmount += BigInt(row.overrun);
        } else if (row.status === 'cut_off') {
          target.spend += BigInt(row.cost) - piiFee;
          target.cutOffs += count;
          target.cutOffAmount += BigInt(row.cost);
        } else if (row.status === 'released') target.released += count;
        else target.expired += count;
      }
      for (const row of open.rows) {
        const account = accountOf(requests, row.org_id);
        account.open.set(row.request_id, {
          reservationId: row.request_id,
          orgId: row.org_id,
          day: row.day,
          keyId: row.key_id,
          spaceId: row.space_id,
          category: row.category,
          model: row.model,
          priceVersion: row.price_version,
          serviceTier: row.service_tier,
          amount: BigInt(row.reserved),
        });
      }
      const spendDaily = emptyLedgerFold();
      for (const row of spend.rows) {
        // spend_daily keeps "no space" as ''; the audit as null
        const target = rowOf(spendDaily, { ...row, space_id: row.space_id === '' ? null : row.space_id });
        target.requests += Number(row.requests);
        target.spend += BigInt(row.cost);
        addSpendByKind(target.byKind, kindsOf(row));
      }
      return {
        checkpoint: checkpoints.rows[0]!.position,
        balances: new Map(
          balances.rows.map((row) => [row.org_id, { credits: BigInt(row.credits), settled: BigInt(row.settled), reserved: BigInt(row.reserved), balance: BigInt(row.balance) }]),
        ),
        requests,
        spendDaily,
      };
    });
}

function accountOf(fold: LedgerFold, orgId: string) {
  let account = fold.accounts.get(orgId);
  if (!account) fold.accounts.set(orgId, (account = { orgId, credits: 0n, creditsByDay: new Map(), settled: 0n, open: new Map(), decided: undefined }));
  return account;
}

function kindsOf(row: KindSums): Record<CostKind, string> {
  return Object.fromEntries(COST_KINDS.map((kind) => [kind, row[kind]])) as Record<CostKind, string>;
}

function rowOf(fold: LedgerFold, row: GroupedRow): SpendRow {
  const id = JSON.stringify([row.org_id, row.day, row.key_id, row.space_id, row.category, row.model, row.price_version]);
  let target = fold.rows.get(id);
  if (!target) {
    target = emptySpendRow({ orgId: row.org_id, day: row.day, keyId: row.key_id, spaceId: row.space_id, category: row.category, model: row.model, priceVersion: row.price_version });
    fold.rows.set(id, target);
  }
  accountOf(fold, row.org_id);
  return target;
}
