import { parseArgs } from 'node:util';
import { AUDIT_FORMATS, renderAudit, type AuditFormat } from './audit-format.js';
import { auditFilter, auditQuery, type AuditFilter } from './audit-report.js';
import { auditReport, reconcileAudit, verifyLedger, type AuditSources, type Verification } from './audit-service.js';

/**
 * `npm run audit -- [verify] [--org ID] [--from DATE] [--to DATE] [--group-by …] [--format …] [--reconcile]`.
 * Split from cli.ts so that it runs the same on the database (the usual case) and through a running
 * embedded gateway's admin API (when that gateway holds the data directory).
 *
 * Exit codes: 0 consistent; 1 a difference or mismatch was found (each printed on stderr); 2 bad usage;
 * 3 the audit could not run (cli.ts: configuration, database, event store or gateway unreachable).
 */
export const AUDIT_USAGE = `usage: npm run audit -- [--org ID] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--group-by key|model|space|day|type|price_version] [--format table|csv|json] [--reconcile]
       npm run audit -- verify [--org ID]`;

export interface AuditBackend {
  /** The report rendered in `format`; with `reconcile`, also its differences with the read models. */
  report(filter: AuditFilter, format: AuditFormat, reconcile: boolean): Promise<{ text: string; reconciliation?: ReconciliationSummary }>;
  verify(orgId: string | undefined): Promise<Verification>;
}

export interface ReconciliationSummary {
  readonly checkpoint: string | null;
  readonly eventsAfterCheckpoint: number;
  readonly differences: readonly string[];
}

export interface AuditCommandContext {
  readonly backend: AuditBackend;
  readonly now: Date;
  readonly out: (text: string) => void;
  readonly err: (line: string) => void;
}

export class AuditUsageError extends Error {}

const OPTIONS = {
  org: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  'group-by': { type: 'string' },
  format: { type: 'string' },
  reconcile: { type: 'boolean' },
} as const;

export function parseAuditArgs(args: readonly string[], now: Date): { command: 'report' | 'verify'; filter: AuditFilter; format: AuditFormat; reconcile: boolean } {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true });
  } catch (error) {
    throw new AuditUsageError((error as Error).message);
  }
  const { positionals, values } = parsed;
  if (positionals.length > 1 || (positionals[0] !== undefined && positionals[0] !== 'verify')) throw new AuditUsageError(`unknown command ${positionals.join(' ')}`);
  const command = positionals[0] === 'verify' ? 'verify' : 'report';
  if (command === 'verify' && (values.from || values.to || values['group-by'] || values.format || values.reconcile)) {
    throw new AuditUsageError('verify takes only --org: it checks the balances of all time');
  }
  const query = auditQuery.safeParse({ organization_id: values.org, from: values.from, to: values.to, group_by: values['group-by'] });
  if (!query.success) {
    const issue = query.error.issues[0]!;
    throw new AuditUsageError(`--${String(issue.path[0] ?? '').replace('organization_id', 'org').replace('group_by', 'group-by')}: ${issue.message}`);
  }
  const format = values.format ?? 'table';
  if (!(AUDIT_FORMATS as readonly string[]).includes(format)) throw new AuditUsageError(`--format: must be one of ${AUDIT_FORMATS.join(', ')}`);
  const filter = auditFilter(query.data, now);
  if (filter.from > filter.to) throw new AuditUsageError(`--from ${filter.from} is after --to ${filter.to}`);
  return { command, filter, format: format as AuditFormat, reconcile: values.reconcile ?? false };
}

export async function runAuditCommand(args: readonly string[], context: AuditCommandContext): Promise<number> {
  let parsed;
  try {
    parsed = parseAuditArgs(args, context.now);
  } catch (error) {
    if (!(error instanceof AuditUsageError)) throw error;
    context.err(error.message);
    context.err(AUDIT_USAGE);
    return 2;
  }
  if (parsed.command === 'verify') {
    const verification = await context.backend.verify(parsed.filter.orgId);
    for (const mismatch of verification.mismatches) context.err(`mismatch: ${mismatch}`);
    const { charges, notVersioned } = verification.repriced;
    const before = notVersioned > 0 ? ` (${notVersioned} recorded before prices were versioned are not)` : '';
    context.out(
      verification.mismatches.length === 0
        ? `verified ${verification.organizations} organizations: credits − settled = balance and open reservations = reserved, in the log, the account state and the read models; re-priced ${charges} charges at their price versions${before}\n`
        : `${verification.mismatches.length} mismatches in ${verification.organizations} organizations\n`,
    );
    return verification.mismatches.length === 0 ? 0 : 1;
  }
  const { text, reconciliation } = await context.backend.report(parsed.filter, parsed.format, parsed.reconcile);
  context.out(text);
  if (!reconciliation) return 0;
  for (const difference of reconciliation.differences) context.err(`difference: ${difference}`);
  const behind = reconciliation.eventsAfterCheckpoint > 0 ? ` (${reconciliation.eventsAfterCheckpoint} newer events are not in them yet)` : '';
  context.err(
    reconciliation.differences.length === 0
      ? `reconciled with the read models as of their checkpoint ${reconciliation.checkpoint ?? 'start'}${behind}: no difference`
      : `${reconciliation.differences.length} differences with the read models as of their checkpoint ${reconciliation.checkpoint ?? 'start'}${behind}`,
  );
  return reconciliation.differences.length === 0 ? 0 : 1;
}

/** Runs on the store and the read-model database directly. */
export function localAuditBackend(sources: AuditSources): AuditBackend {
  return {
    async report(filter, format, reconcile) {
      if (!reconcile) return { text: renderAudit(await auditReport(sources, filter), format) };
      const reconciliation = await reconcileAudit(sources, filter);
      return { text: renderAudit(reconciliation.report, format), reconciliation };
    },
    verify: (orgId) => verifyLedger(sources, orgId),
  };
}
