import { z } from 'zod';
import { addSpendByKind, zeroSpendByKind, type LedgerFold, type SpendByKind, type SpendRow } from './audit-fold.js';

/**
 * The audit report: per organization, for the UTC days `from`…`to` (inclusive), grouped as asked. Every
 * request figure belongs to the day the request's money was reserved (as in the spend report and the
 * read model `spend_daily`); credits to the day they were added. Open reservations are those still open
 * at the end of the replay, of requests reserved in the period.
 */
export const GROUP_BYS = ['key', 'model', 'space', 'day', 'type', 'price_version'] as const;
export type GroupBy = (typeof GROUP_BYS)[number];

const day = z.iso.date('must be a date YYYY-MM-DD');
/** The filter as the admin API takes it (query string) and the CLI passes it on. */
export const auditQuery = z.strictObject({
  organization_id: z.string().min(1).optional(),
  from: day.optional(),
  to: day.optional(),
  group_by: z.enum(GROUP_BYS).optional(),
});

export interface AuditFilter {
  readonly orgId: string | undefined;
  readonly from: string;
  readonly to: string;
  readonly groupBy: GroupBy;
}

/** Defaults as in the spend report: from the first day of this month to today (UTC), grouped by day. */
export function auditFilter(input: z.output<typeof auditQuery>, now: Date): AuditFilter {
  const today = now.toISOString().slice(0, 10);
  return { orgId: input.organization_id, from: input.from ?? `${today.slice(0, 7)}-01`, to: input.to ?? today, groupBy: input.group_by ?? 'day' };
}

export interface Figures {
  /** Closed requests. */
  requests: number;
  spend: bigint;
  overruns: number;
  overrunAmount: bigint;
  cutOffs: number;
  cutOffAmount: bigint;
  released: number;
  expired: number;
  openCount: number;
  openAmount: bigint;
  /** `spend` split by kind (the masking fee is the type `pii`, not a kind). */
  readonly byKind: SpendByKind;
}

export interface AuditGroup extends Figures {
  /** The group's value; '' for a request without a space. */
  readonly group: string;
}

export interface OrganizationAudit extends Figures {
  readonly orgId: string;
  /** Credits added in the period. */
  credits: bigint;
  readonly groups: AuditGroup[];
}

export interface AuditReport {
  readonly filter: AuditFilter;
  /** Sorted by organization id; an organization with nothing in the period is left out. */
  readonly organizations: OrganizationAudit[];
}

/**
 * The group a row belongs to. A price version is a model's: `price_version` groups by `<model>@v<version>`
 * (empty for requests charged before prices were versioned).
 */
export function groupValue(row: { day: string; keyId: string; spaceId: string | null; category: string; model: string; priceVersion: number | null }, groupBy: GroupBy): string {
  switch (groupBy) {
    case 'key':
      return row.keyId;
    case 'model':
      return row.model;
    case 'space':
      return row.spaceId ?? '';
    case 'day':
      return row.day;
    case 'type':
      return row.category;
    case 'price_version':
      return row.priceVersion === null ? '' : `${row.model}@v${row.priceVersion}`;
  }
}

export const inPeriod = (filter: AuditFilter, day: string) => day >= filter.from && day <= filter.to;

export function buildAuditReport(fold: LedgerFold, filter: AuditFilter): AuditReport {
  const organizations = new Map<string, OrganizationAudit & { byGroup: Map<string, AuditGroup> }>();
  const organization = (orgId: string) => {
    let entry = organizations.get(orgId);
    if (!entry) organizations.set(orgId, (entry = { orgId, credits: 0n, groups: [], byGroup: new Map(), ...zeroFigures() }));
    return entry;
  };
  const groupOf = (orgId: string, group: string) => {
    const entry = organization(orgId);
    let figures = entry.byGroup.get(group);
    if (!figures) entry.byGroup.set(group, (figures = { group, ...zeroFigures() }));
    return figures;
  };
  const selected = (orgId: string) => filter.orgId === undefined || filter.orgId === orgId;

  for (const row of fold.rows.values()) {
    if (!selected(row.orgId) || !inPeriod(filter, row.day)) continue;
    addRow(groupOf(row.orgId, groupValue(row, filter.groupBy)), row);
    addRow(organization(row.orgId), row);
  }
  for (const account of fold.accounts.values()) {
    if (!selected(account.orgId)) continue;
    for (const [day, amount] of account.creditsByDay) if (inPeriod(filter, day)) organization(account.orgId).credits += amount;
    for (const request of account.open.values()) {
      if (!inPeriod(filter, request.day)) continue;
      for (const figures of [groupOf(account.orgId, groupValue(request, filter.groupBy)), organization(account.orgId)]) {
        figures.openCount++;
        figures.openAmount += request.amount;
      }
    }
  }
  const sorted = [...organizations.values()].sort((a, b) => compareText(a.orgId, b.orgId));
  return {
    filter,
    organizations: sorted.map(({ byGroup, ...entry }) => ({ ...entry, groups: [...byGroup.values()].sort((a, b) => compareText(a.group, b.group)) })),
  };
}

/** Code-point order, the same on every machine and locale (the CSV contract sorts by it). */
export const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function addRow(figures: Figures, row: SpendRow): void {
  figures.requests += row.requests;
  figures.spend += row.spend;
  figures.overruns += row.overruns;
  figures.overrunAmount += row.overrunAmount;
  figures.cutOffs += row.cutOffs;
  figures.cutOffAmount += row.cutOffAmount;
  figures.released += row.released;
  figures.expired += row.expired;
  addSpendByKind(figures.byKind, row.byKind);
}

function zeroFigures(): Figures {
  return { requests: 0, spend: 0n, overruns: 0, overrunAmount: 0n, cutOffs: 0, cutOffAmount: 0n, released: 0, expired: 0, openCount: 0, openAmount: 0n, byKind: zeroSpendByKind() };
}
