import type { AuditFiguresRecord, AuditReportRecord, SpendByKindRecord } from '../admin-records.js';
import { COST_KINDS, formatUsd, type CostKind } from '../billing/money.js';
import type { AuditReport, Figures, OrganizationAudit } from './audit-report.js';

/**
 * The report's three forms. The CSV is a contract (README, "Finance audit"): the web console's download
 * must equal it byte for byte for the same filter, so it changes only with a new contract.
 */
export const AUDIT_FORMATS = ['table', 'csv', 'json'] as const;
export type AuditFormat = (typeof AUDIT_FORMATS)[number];

/**
 * `organization_id,<group_by>,requests,spend_usd`, one row per organization and group, sorted by
 * organization id then group value (code-point order); an absent space is an empty field; amounts as
 * `formatUsd` writes them; `\n` after every line; no total row. A field holding a comma, a quote or a
 * line break is quoted as RFC 4180 says (no id or model name of the gateway has one today).
 */
export function auditCsv(report: AuditReport): string {
  const lines = [['organization_id', report.filter.groupBy, 'requests', 'spend_usd']];
  for (const organization of report.organizations) {
    for (const group of organization.groups) lines.push([organization.orgId, group.group, String(group.requests), formatUsd(group.spend)]);
  }
  return lines.map((fields) => `${fields.map(csvField).join(',')}\n`).join('');
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** The JSON form (admin API and `--format json`): amounts as USD strings, counts as numbers. */
export function auditJson(report: AuditReport): AuditReportRecord {
  const { filter } = report;
  return {
    object: 'audit_report',
    organization_id: filter.orgId ?? null,
    from: filter.from,
    to: filter.to,
    group_by: filter.groupBy,
    data: report.organizations.map((organization) => ({
      organization_id: organization.orgId,
      credits_usd: formatUsd(organization.credits),
      ...figuresJson(organization),
      groups: organization.groups.map((group) => ({ [filter.groupBy]: group.group === '' ? null : group.group, ...figuresJson(group) })),
    })),
  };
}

function figuresJson(figures: Figures): AuditFiguresRecord {
  return {
    requests: figures.requests,
    spend_usd: formatUsd(figures.spend),
    spend_by_kind: spendByKindRecord((kind) => figures.byKind[kind]),
    open_reservations: { count: figures.openCount, amount_usd: formatUsd(figures.openAmount) },
    overruns: { count: figures.overruns, amount_usd: formatUsd(figures.overrunAmount) },
    cut_offs: { count: figures.cutOffs, amount_usd: formatUsd(figures.cutOffAmount) },
    released: figures.released,
    expired: figures.expired,
  };
}

const TABLE_HEADER = ['requests', 'spend_usd', 'open', 'open_usd', 'overruns', 'overrun_usd', 'cut_offs', 'cut_off_usd', 'released', 'expired'];

function figureCells(figures: Figures): string[] {
  return [
    String(figures.requests),
    formatUsd(figures.spend),
    String(figures.openCount),
    formatUsd(figures.openAmount),
    String(figures.overruns),
    formatUsd(figures.overrunAmount),
    String(figures.cutOffs),
    formatUsd(figures.cutOffAmount),
    String(figures.released),
    String(figures.expired),
  ];
}

/** For people: one block per organization, its groups and a total line, numbers aligned right. */
export function auditTable(report: AuditReport): string {
  const { filter } = report;
  const out = [`audit of the event log, ${filter.from} to ${filter.to} (UTC days the money was reserved), by ${filter.groupBy}`];
  if (report.organizations.length === 0) return `${out[0]}\nno activity\n`;
  for (const organization of report.organizations) out.push('', ...organizationTable(organization, filter.groupBy));
  return `${out.join('\n')}\n`;
}

/** The kinds as the table names them (the JSON's `spend_by_kind` fields without `_usd`). */
const KIND_LABELS: Record<CostKind, string> = {
  input: 'input',
  cachedInput: 'cached input',
  cacheWrite: 'cache writes',
  output: 'output',
  reasoning: 'reasoning',
  audio: 'audio',
  media: 'media',
};

function organizationTable(organization: OrganizationAudit, groupBy: string): string[] {
  const rows = [
    [groupBy, ...TABLE_HEADER],
    ...organization.groups.map((group) => [group.group === '' ? '(none)' : group.group, ...figureCells(group)]),
    ['total', ...figureCells(organization)],
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  '));
  const kinds = COST_KINDS.filter((kind) => organization.byKind[kind] !== 0n).map((kind) => `${KIND_LABELS[kind]} ${formatUsd(organization.byKind[kind])}`);
  return [`organization ${organization.orgId}: credits added ${formatUsd(organization.credits)}`, ...lines, ...(kinds.length > 0 ? [`spend by kind: ${kinds.join(', ')}`] : [])];
}

/** The report as `npm run audit` prints it and the admin API answers it. */
export function renderAudit(report: AuditReport, format: AuditFormat): string {
  switch (format) {
    case 'csv':
      return auditCsv(report);
    case 'json':
      return `${JSON.stringify(auditJson(report), null, 2)}\n`;
    case 'table':
      return auditTable(report);
  }
}

/** Spend by kind as the admin API writes it (the spend report, the audit). */
export function spendByKindRecord(amountOf: (kind: CostKind) => bigint): SpendByKindRecord {
  return {
    input_usd: formatUsd(amountOf('input')),
    cached_input_usd: formatUsd(amountOf('cachedInput')),
    cache_write_usd: formatUsd(amountOf('cacheWrite')),
    output_usd: formatUsd(amountOf('output')),
    reasoning_usd: formatUsd(amountOf('reasoning')),
    audio_usd: formatUsd(amountOf('audio')),
    media_usd: formatUsd(amountOf('media')),
  };
}
